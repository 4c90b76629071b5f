import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PcapWriter, cycleToNs, readPcap, writePcap } from '../../model/pcap.ts';
import { repoRoot, testRng } from './helpers.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-pcap-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The same file with every header field byte-swapped: what a big-endian writer produces. */
function toBigEndian(file: Uint8Array): Uint8Array {
  const out = Uint8Array.from(file);
  const swap = (o: number, n: number): void => { out.set(file.subarray(o, o + n).reverse(), o); };
  swap(0, 4); swap(4, 2); swap(6, 2); swap(8, 4); swap(12, 4); swap(16, 4); swap(20, 4);
  let off = 24;
  while (off < file.length) {
    const incl = new DataView(file.buffer, file.byteOffset).getUint32(off + 8, true);
    for (let k = 0; k < 4; k++) swap(off + 4 * k, 4);
    off += 16 + incl;
  }
  return out;
}

describe('pcap', () => {
  it('round-trips frames and microsecond timestamps', () => {
    const rng = testRng('pcap round trip');
    const frames = Array.from({ length: 50 }, (_, i) => ({ data: rng.bytes(rng.int(14, 1600)), timeNs: cycleToNs(i * 1000 + rng.int(0, 999), 250_000_000) }));
    const file = path.join(dir, 'rt.pcap');
    writePcap(file, frames);
    const p = readPcap(file);
    expect(p).toMatchObject({ byteOrder: 'le', resolution: 'us', versionMajor: 2, versionMinor: 4, linktype: 1, snaplen: 65535, trailingBytes: 0 });
    expect(p.records.length).toBe(frames.length);
    p.records.forEach((r, i) => {
      expect(r.data).toEqual(frames[i]!.data);
      expect(r.originalLength).toBe(frames[i]!.data.length);
      expect(r.timeNs).toBe((frames[i]!.timeNs / 1000n) * 1000n);
    });
    const be = readPcap(toBigEndian(fs.readFileSync(file)));
    expect(be.byteOrder).toBe('be');
    expect(be.records).toEqual(p.records);
  });

  it('keeps nanoseconds, cuts at the snaplen, and places the epoch', () => {
    const file = path.join(dir, 'ns.pcap');
    const w = PcapWriter.open(file, { resolution: 'ns', snaplen: 64, epochNs: 1_700_000_000_000_000_000n });
    w.write(new Uint8Array(100).fill(7), 1_234_567_891n);
    w.write(new Uint8Array(10).fill(8), 0n);
    expect(w.frames).toBe(2);
    w.close();
    w.close();
    expect(() => w.write(new Uint8Array(1), 0n)).toThrow(/closed/);
    const p = readPcap(file);
    expect(p.resolution).toBe('ns');
    expect(p.records[0]!.data.length).toBe(64);
    expect(p.records[0]!.originalLength).toBe(100);
    expect(p.records[0]!.timeNs).toBe(1_700_000_001_234_567_891n);
    expect(p.records[1]!.data).toEqual(new Uint8Array(10).fill(8));
  });

  it('converts cycles to nanoseconds exactly at odd clocks', () => {
    expect(cycleToNs(322_265_625n, 322_265_625)).toBe(1_000_000_000n);
    expect(cycleToNs(3, 250_000_000)).toBe(12n);
    expect(() => cycleToNs(1, 0)).toThrow();
  });

  it('loses no frame when the writing process is killed mid-run', () => {
    const file = path.join(dir, 'killed.pcap');
    const script = `
      import { PcapWriter } from ${JSON.stringify(path.join(repoRoot, 'tb/model/pcap.ts'))};
      const w = PcapWriter.open(${JSON.stringify(file)});
      for (let i = 0; i < 200; i++) w.write(new Uint8Array(60 + i).fill(i), BigInt(i) * 1000n);
      process.kill(process.pid, 'SIGKILL');`;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: repoRoot, encoding: 'utf8' });
    expect(r.signal, r.stderr).toBe('SIGKILL');
    const p = readPcap(file);
    expect(p.records.length).toBe(200);
    expect(p.records[199]!.data).toEqual(new Uint8Array(259).fill(199));
    expect(p.trailingBytes).toBe(0);
  });

  it('reports a half-written last record instead of failing', () => {
    const file = path.join(dir, 'cut.pcap');
    writePcap(file, [{ data: new Uint8Array(80), timeNs: 0n }, { data: new Uint8Array(80), timeNs: 1000n }]);
    const bytes = fs.readFileSync(file);
    const p = readPcap(bytes.subarray(0, bytes.length - 30));
    expect(p.records.length).toBe(1);
    expect(p.trailingBytes).toBe(16 + 80 - 30);
    expect(() => readPcap(Uint8Array.of(0x0a, 0x0d, 0x0d, 0x0a, ...new Uint8Array(20)))).toThrow(/pcapng/);
    expect(() => readPcap(new Uint8Array(24))).toThrow(/magic/);
  });
});
