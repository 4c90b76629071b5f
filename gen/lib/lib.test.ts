import { describe, expect, it } from 'vitest';
import type { IORecord, ModuleDef } from '../hdl/index.ts';

type Params = Readonly<Record<string, unknown>>;
import { rrArbiter, wrrArbiter } from './arbiter.ts';
import { CRC16_XMODEM, CRC32, CRC5_USB, crcParallel } from './crc.ts';
import { syncFifo, syncFifoRam } from './fifo.ts';
import { skidBuffer } from './skid.ts';
import { emitToDir, type Emitted, iverilogCompile, verilatorLint, yosysSynth } from './lint-helper.ts';

interface Case { label: string; emit: () => Emitted; ram?: boolean }
const c = <P extends Params, IO extends IORecord>(label: string, def: ModuleDef<P, IO>, params: Partial<P>): Case =>
  ({ label, emit: () => emitToDir(def, params), ram: (def as unknown) === syncFifoRam });

const cases: Case[] = [
  c('skid w1', skidBuffer, { width: 1 }),
  c('skid w64', skidBuffer, { width: 64 }),
  c('fifo w8 d2', syncFifo, { width: 8, depth: 2 }),
  c('fifo w33 d16', syncFifo, { width: 33, depth: 16 }),
  c('fifo ram w8 d2', syncFifoRam, { width: 8, depth: 2 }),
  c('fifo ram w512 d64', syncFifoRam, { width: 512, depth: 64 }),
  c('rr n1', rrArbiter, { n: 1 }),
  c('rr n2', rrArbiter, { n: 2 }),
  c('rr n7', rrArbiter, { n: 7 }),
  c('wrr n1', wrrArbiter, { n: 1, weightWidth: 1 }),
  c('wrr n4', wrrArbiter, { n: 4 }),
  c('wrr n5 w8', wrrArbiter, { n: 5, weightWidth: 8 }),
  c('crc32 1 byte', crcParallel(CRC32), { bytes: 1 }),
  c('crc32 8 bytes', crcParallel(CRC32), { bytes: 8 }),
  c('crc32 64 bytes skip 14', crcParallel(CRC32), { bytes: 64, skip: 14 }),
  c('crc16 2 bytes', crcParallel(CRC16_XMODEM), { bytes: 2 }),
  c('crc5 3 bytes', crcParallel(CRC5_USB), { bytes: 3 }),
];

describe('gen/lib modules elaborate, emit and pass the Verilog tools', () => {
  for (const k of cases) {
    it(k.label, () => {
      const e = k.emit();
      verilatorLint(e);
      iverilogCompile(e);
      // Yosys on the 512-bit CRC takes a while; the 64-byte RAM FIFO is checked for RAM inference.
      if (!k.label.includes('64 bytes')) {
        const stat = yosysSynth(e);
        if (k.ram) expect(stat).toMatch(/\$mem_v2\s+1/);
      }
    });
  }

  it('rejects a depth that is not a power of two', () => {
    expect(() => syncFifo.elaborate({ depth: 12 })).toThrow(/power of two/);
    expect(() => syncFifoRam.elaborate({ depth: 1 })).toThrow(/power of two/);
  });
});
