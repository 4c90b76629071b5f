// GTKWave savefiles checked by the real GTKWave: each savefile the wave tools write for a
// failing nic_wqe_fetch run (the test's own --wave dump and the failure re-run's) is loaded
// in a headless GTKWave under Xvfb, which lists what it shows (Tcl) and grabs a screenshot.
// A savefile GTKWave cannot read, a missing signal, a field alias on the wrong bits or an
// FSM without its state names fails here. Also a nic_top dump: 54 modules, 73 instances.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ShapeJson } from '../../../gen/hdl/shape.ts';
import { nicTop } from '../../../gen/nic/nic-top.ts';
import { runTest } from '../../core/index.ts';
import { design } from '../../design.ts';
import { dumpChanges } from '../../waves/dump.ts';
import { gtkwaveHeadless, type GtkwaveView } from '../../waves/gtkwave.ts';
import { fieldAlias } from '../../waves/savefile.ts';
import { valueAt } from '../../waves/vcd.ts';
import { failingFetch } from './fetch-failure.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-savefile-'));

/** Every line of a savefile that GTKWave turns into a row: signals, group starts and ends. */
function rowsOf(savefile: string): number {
  return fs.readFileSync(savefile, 'utf8').split('\n').filter(l => l !== '' && !/^[[@^*]/.test(l)).length;
}

/** PNG width and height from its IHDR chunk. */
function pngSize(file: string): { width: number; height: number } {
  const b = fs.readFileSync(file);
  expect(b.subarray(1, 4).toString()).toBe('PNG');
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

async function view(dump: string, savefile: string, shot: string, values = true): Promise<GtkwaveView> {
  const v = await gtkwaveHeadless(dump, savefile, shot, values);
  expect(v.traces.length, `GTKWave shows every row of ${savefile}\n${v.log.slice(0, 2000)}`).toBe(rowsOf(savefile));
  const { width, height } = pngSize(shot);
  expect(width).toBeGreaterThan(1000);
  expect(height).toBeGreaterThan(600);
  return v;
}

/** Leaf fields of a struct: alias as the savefile names it, offset and width. */
function leaves(shape: ShapeJson, prefix = '', offset = 0): { alias: string; lo: number; width: number; names?: Record<string, number> }[] {
  if (shape.kind === 'struct') return shape.fields.flatMap(f => leaves(f.shape, prefix ? `${prefix}.${f.name}` : f.name, offset + f.offset));
  if (shape.kind === 'vec') return Array.from({ length: shape.count }, (_, i) => leaves(shape.element, `${prefix}[${i}]`, offset + i * shape.element.width)).flat();
  return [{ alias: fieldAlias(prefix), lo: offset, width: shape.width, ...(shape.kind === 'enum' ? { names: shape.members } : {}) }];
}

describe('GTKWave savefiles', () => {
  it('a failing nic_wqe_fetch run: marker at the failure, FSM states by name, struct fields on the right bits, in both dumps', async () => {
    const own = path.join(tmp, 'own.fst');
    const f = await failingFetch({ wave: own, pictures: path.join(tmp, 'failures') });
    const failAt = f.cycle * 4000;
    const rerun = f.files;
    expect(rerun, f.message).toBeDefined();
    expect(f.details.waves?.savefile).toBe(path.join(tmp, 'own.gtkw'));
    const manifest = (await import('./fetch-failure.ts')).fetchDesign().manifest;
    const port = manifest.ports.find(p => p.name === 'm_wqe_data')!;
    for (const [dump, savefile] of [[own, f.details.waves!.savefile!], [rerun!.dump, rerun!.savefile!]] as const) {
      const v = await view(dump, savefile, `${savefile}.png`);
      expect(v.marker, 'primary marker at the failing cycle').toBe(failAt);
      expect(v.windowStart, 'the view opens before the failure').toBeLessThan(failAt);
      expect(v.windowStart).toBeGreaterThan(failAt - 40 * 4000);
      const state = v.traces.find(t => t.name === 'state[1:0]');
      expect(['IDLE', 'PLAN', 'ADDR', 'DATA'], 'the FSM shows a state name').toContain(state?.value);
      // Each field GTKWave shows at the marker equals those bits of the whole vector in the dump.
      const vec = manifest.ports.find(p => p.name === 'm_wqe_data')!;
      const header = await dumpChanges(dump, new Set());
      const id = header.header.root.scopes.get('TOP')!.scopes.get(manifest.top)!.vars.find(x => x.name === vec.name)!.id;
      const whole = valueAt((await dumpChanges(dump, new Set([id]))).traces.get(id)!, failAt)!;
      const start = v.traces.findIndex(t => t.name === 'm_wqe_data (struct wqe)');
      expect(start, 'm_wqe_data has its own group').toBeGreaterThan(0);
      expect(v.traces[start]!.flags & 0x800000, 'group start').toBeTruthy();
      expect(v.traces[start + 1]!.flags & 0x1, 'the bus the check watched is highlighted').toBeTruthy();
      const fields = leaves(port.shape);
      const shown = v.traces.slice(start + 2, start + 2 + fields.length);
      expect(shown.map(t => t.name)).toEqual(fields.map(x => x.alias));
      fields.forEach((x, i) => {
        const bits = BigInt.asUintN(x.width, whole >> BigInt(x.lo));
        const want = x.names ? Object.entries(x.names).find(([, n]) => BigInt(n) === bits)?.[0] ?? bits.toString(16) : bits.toString(16);
        const got = x.names ? shown[i]!.value : BigInt(`0x${shown[i]!.value || '0'}`).toString(16);
        expect(got, `field ${x.alias} at the marker`).toBe(want);
      });
    }
  });

  it('a nic_top dump: one group per instance, every signal found', async () => {
    const dump = path.join(tmp, 'top.fst');
    await runTest(design(nicTop, {}), async (_dut, tb) => {
      await tb.reset(4);
      await tb.clockCycles(20);
    }, { seed: 1, wave: dump });
    const savefile = path.join(tmp, 'top.gtkw');
    const v = await view(dump, savefile, path.join(tmp, 'top.png'), false);
    const manifest = design(nicTop, {}).manifest;
    const instances = (manifest.modules ?? []).reduce((n, m) => n + m.instances.length, 0);
    const moduleGroups = v.traces.filter(t => (t.flags & 0x800000) !== 0 && / \((top|nic_[a-z_0-9]+|[a-z_0-9]+)\)$/.test(t.name) && !/\((AXI|stream|struct|bundle)/.test(t.name));
    expect(moduleGroups.length, 'a group per module scope').toBeGreaterThanOrEqual(instances / 2);
    expect(v.traces.some(t => t.name === 'state[2:0]' && (t.flags & 0x2000) !== 0), 'FSMs use their filters').toBe(true);
  });
});
