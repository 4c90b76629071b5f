// nic_read_resp_rx against its TS model (read-resp-rx-model.ts) on the bench of
// read-resp-rx-bench.ts: random READs 0..64 KiB at every path MTU, 1-4 SGEs at random
// alignments (zero-length ones too), PSN wrap, four QPs interleaved, duplicate / ahead /
// out-of-sequence / bad-length responses, NAKs, DMA errors, random back-pressure and
// DmaStatus latency; the Verilog gates at 64 and 512 bits; the payload rate at full speed.

import { describe, expect, it } from 'vitest';
import { emitToDir, iverilogCompile, verilatorLint, yosysSynth } from '../../../gen/lib/lint-helper.ts';
import { nicReadRespRx } from '../../../gen/nic/read-resp-rx.ts';
import { CQE_STATUS, QP_STATE } from '../../../gen/nic/regmap.ts';
import { runBench } from './read-resp-rx-bench.ts';

describe('nic_read_resp_rx', () => {
  it('passes the Verilog tools (64 bits; 512 bits and 2 QPs through verilator)', () => {
    const e = emitToDir(nicReadRespRx, {});
    verilatorLint(e);
    iverilogCompile(e);
    yosysSynth(e);
    verilatorLint(emitToDir(nicReadRespRx, { dataWidth: 512 }));
    verilatorLint(emitToDir(nicReadRespRx, { numQp: 2, depth: 4 }));
  }, 600_000);

  it('writes clean READs (0..64 KiB, all MTUs, 1-4 SGEs, PSN wrap) under back-pressure', async () => {
    const r = await runBench({ reads: 40, qps: 4, maxLen: 65536, pErr: 0, pNoise: 0 }, { pIn: 0.8, pOut: 0.7, maxLat: 30 });
    expect(r.want.dones.every(d => d.ok === 1), 'every READ succeeds').toBe(true);
    expect(r.want.writes.length).toBeGreaterThan(40);
  }, 600_000);

  it('drops duplicates and ahead packets, fails bad sequences, lengths, NAKed and DMA-failed READs', async () => {
    const r = await runBench({ reads: 80, qps: 4, maxLen: 12000, pErr: 0.3, pNoise: 0.15, poison: 0.08 }, { pIn: 0.7, pOut: 0.6, maxLat: 40 });
    const seen = new Set(r.want.dones.map(d => d.status));
    for (const s of [CQE_STATUS.SUCCESS, CQE_STATUS.REMOTE_INVALID_REQUEST, CQE_STATUS.LOCAL_LENGTH_ERROR, CQE_STATUS.LOCAL_PROTECTION_ERROR]) {
      expect(seen.has(s), `some READ ended with status ${s}`).toBe(true);
    }
    expect(r.want.dones.some(d => d.syndrome !== 0), 'some READ was completed by a NAK').toBe(true);
  }, 600_000);

  it('discards the contexts and traffic of QPs in ERROR or RESET without events', async () => {
    const r = await runBench({ reads: 40, qps: 4, maxLen: 9000, pErr: 0.2, pNoise: 0.1, poison: 0.05 }, { pIn: 0.9, pOut: 0.8, maxLat: 20, states: { 1: QP_STATE.ERROR, 2: QP_STATE.RESET } });
    expect(r.ctxs.some(c => c.qp === 1) && r.ctxs.some(c => c.qp === 2), 'READs were posted on the dead QPs').toBe(true);
    expect(r.want.dones.every(d => d.qp === 0 || d.qp === 3), 'only live QPs complete').toBe(true);
    expect(r.want.dones.length).toBeGreaterThan(0);
  }, 600_000);

  it('at 512 bits', async () => {
    await runBench({ reads: 30, qps: 4, maxLen: 20000, pErr: 0.2, pNoise: 0.1, poison: 0.05 }, { dataWidth: 512, pIn: 0.8, pOut: 0.7, maxLat: 20 });
  }, 600_000);

  for (const pmtu of [12, 8]) {
    it(`moves a 64 KiB READ at about one beat a cycle (MTU ${1 << pmtu})`, async () => {
      const r = await runBench({ reads: 1, qps: 1, maxLen: 65536, pErr: 0, pNoise: 0, mtus: [pmtu], fixedLen: 65536 }, { pIn: 1, pOut: 1, maxLat: 4 });
      const f = r.dma.pay.frames;
      const beats = f.reduce((a, x) => a + x.beats, 0);
      const cycles = f.at(-1)!.lastCycle - f[0]!.firstCycle + 1;
      console.log(`MTU ${1 << pmtu}, ${r.ctxs[0]!.numSge} SGEs: ${beats} beats in ${cycles} cycles = ${(beats / cycles).toFixed(3)} beats/cycle`);
      expect(beats / cycles).toBeGreaterThan(0.95);
    }, 600_000);
  }
});
