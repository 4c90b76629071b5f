// The pieces behind waves and failure pictures that need no simulator: cycle times, the wave
// window that covers a failure's cause, the ports a check watched, the picture's columns,
// the VCD reader, and the scoreboard dating its records.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CQE_STATUS } from '../../../gen/nic/regmap.ts';
import { ClockPeriodError, ClockTime } from '../../../sim/clock.ts';
import { causeCycleOf, TimeoutError } from '../../core/index.ts';
import { HostMemory } from '../../model/host-memory.ts';
import { RdmaScoreboard, ScoreboardMismatch } from '../../model/scoreboard.ts';
import { dumpChanges } from '../../waves/dump.ts';
import { failureWindow, MAX_WINDOW, watchedSignals } from '../../waves/failure.ts';
import { pictureColumns } from '../../waves/picture.ts';
import { valueAt } from '../../waves/vcd.ts';
import { fetchDesign } from './fetch-failure.ts';

describe('cycle times', () => {
  it('prints cycle N (T ns) for every cycle in a message, once, at any period', () => {
    const c = new ClockTime(4);
    expect(c.at(424)).toBe('cycle 424 (1696 ns)');
    expect(c.annotate('waiting since cycle 36, now cycle 4836')).toBe('waiting since cycle 36 (144 ns), now cycle 4836 (19344 ns)');
    expect(c.annotate('TDATA_STABLE violated in cycle 7: x (cycle 9)')).toBe('TDATA_STABLE violated in cycle 7 (28 ns): x (cycle 9, 36 ns)');
    expect(c.annotate(c.annotate('at cycle 3'))).toBe('at cycle 3 (12 ns)');
    expect(c.annotate('after 10000 cycles, cycle limit of 5')).toBe('after 10000 cycles, cycle limit of 5');
    expect(new ClockTime(6.4).at(738)).toBe('cycle 738 (4723.2 ns)');
    expect(() => new ClockTime(4.0001)).toThrow(ClockPeriodError);
    expect(() => new ClockTime(0)).toThrow(ClockPeriodError);
  });
});

describe('the wave window of a failure', () => {
  it('starts where the cause began: a hang waiting since cycle 36 does not suggest --from 4836', () => {
    const e = new TimeoutError('until(done)', 10_000, 36, 10_036);
    expect(causeCycleOf(e)).toBe(36);
    expect(failureWindow(10_036, causeCycleOf(e))).toEqual({ from: 16, to: 10_046 });
    expect(failureWindow(738, undefined)).toEqual({ from: 538, to: 748 });
    expect(failureWindow(50, undefined)).toEqual({ from: 0, to: 60 });
    // A very long wait: the window ends at the failure and is at most MAX_WINDOW long.
    expect(failureWindow(1_000_000, 5)).toEqual({ from: 1_000_010 - MAX_WINDOW, to: 1_000_010 });
  });

  it('a scoreboard mismatch starts at the cycle its record was taken', () => {
    const sb = new RdmaScoreboard();
    let now = 123;
    sb.now = () => now;
    sb.addHost('A', new HostMemory());
    sb.start();
    const wr = { opcode: 0, wrId: 7n, sges: [], remoteVa: 0n, rkey: 0, signaled: true } as unknown as Parameters<RdmaScoreboard['expectStatus']>[2];
    sb.expectStatus('A', 0, wr, CQE_STATUS.SUCCESS);
    now = 900;
    let err: unknown;
    try { sb.onCqe('A', 0, { qp: 0, wrId: 8n, byteLen: 0, opcode: 0, status: 0, syndrome: 0 }); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(ScoreboardMismatch);
    expect((err as Error).message).toMatch(/expected wr_id 0x7 \(posting order\) \(recorded at cycle 123\)$/);
    expect(causeCycleOf(err)).toBe(123);
  });

  it('the ports a check watched: named by the error or the message, widened to their interface', () => {
    const m = fetchDesign().manifest;
    expect(watchedSignals(m, 'm_wqe_data: got 3', undefined)).toEqual(['m_wqe_data', 'm_wqe_valid', 'm_wqe_ready']);
    expect(watchedSignals(m, 'no port named here', { bus: 'm_axi (read)' }).length).toBe(16);
    expect(watchedSignals(m, 'nothing', undefined)).toEqual([]);
  });

  it('the picture: one run of columns up to the failure, or the cause and the end with a gap', () => {
    expect(pictureColumns(100, undefined, 0)).toEqual(Array.from({ length: 33 }, (_, i) => 68 + i));
    const cols = pictureColumns(5000, 36, 16);
    expect(cols.slice(0, 3)).toEqual([32, 33, 34]);
    expect(cols).toContain('gap');
    expect(cols[cols.length - 1]).toBe(5000);
    expect(cols).toContain(36);
  });
});

describe('the VCD reader', () => {
  it('reads scopes, vectors, scalars, x values and multi-line declarations', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-vcd-'));
    const file = path.join(dir, 'x.vcd');
    fs.writeFileSync(file, ['$date', '  today', '$end', '$timescale 1ps $end', '$scope module TOP $end', '$var wire 1 ! clk $end',
      '$scope module top $end', '$var wire 8 " data [7:0] $end', '$var parameter 2 # S [1:0] $end', '$upscope $end', '$upscope $end',
      '$enddefinitions $end', '#0', '$dumpvars', '0!', 'bxxxxxxxx "', '$end', '#2000', '1!', 'b101 "', '#4000', '0!', ''].join('\n'));
    const { header, traces } = await dumpChanges(file, new Set(['!', '"']));
    expect(header.timescale).toBe(-12);
    const top = header.root.scopes.get('TOP')!.scopes.get('top')!;
    expect(top.vars.map(v => `${v.type} ${v.name}${v.range}`)).toEqual(['wire data[7:0]', 'parameter S[1:0]']);
    const data = traces.get('"')!;
    expect(valueAt(data, 0)).toBeNull();
    expect(valueAt(data, 3999)).toBe(5n);
    expect(valueAt(traces.get('!')!, 4000)).toBe(0n);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
