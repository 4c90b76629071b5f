// A configured top without writing TypeScript: `nicgen gen <top> --set k=v --out DIR` gives a
// self-contained folder (Verilog, filelist, port manifest, FuseSoC CAPI2 core); parameters
// out of range are one line naming module, parameter and range, exit 1, nothing written.

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const fixtures = path.join(root, 'tb/tests/cli/fixtures');

function nicgen(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(path.join(root, 'bin/nicgen'), args, { cwd: root, encoding: 'utf8', timeout: 300_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const tmp = (): string => fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-set-'));

interface VerilatorTool { mode: string; verilator_options: string[] }
interface Target { filesets: string[]; toplevel: string; default_tool?: string; tools?: { verilator?: VerilatorTool } }
interface Core { name: string; description: string; filesets: Record<string, { file_type: string; files: string[] }>; targets: Record<string, Target> }

/** The folder's core, checked structurally: every listed file exists, every Verilog file of
 *  the folder is listed, the targets name an existing fileset and the top. */
function checkCore(dir: string, top: string): Core {
  const cores = fs.readdirSync(dir).filter(f => f.endsWith('.core'));
  expect(cores).toEqual([`${top}.core`]);
  const text = fs.readFileSync(path.join(dir, cores[0]!), 'utf8');
  expect(text.startsWith('CAPI=2:\n'), 'the first line FuseSoC looks for').toBe(true);
  const core = parse(text) as Core;
  expect(core.name).toMatch(new RegExp(`^nicgen:nicgen:${top}:\\d+\\.\\d+\\.\\d+$`));
  const files = core.filesets['rtl']!.files;
  expect(core.filesets['rtl']!.file_type).toBe('verilogSource');
  for (const f of files) expect(fs.existsSync(path.join(dir, f)), `${f} listed in the core exists`).toBe(true);
  expect(fs.readdirSync(dir).filter(f => f.endsWith('.v')).sort(), 'every Verilog file is in the core').toEqual([...files].sort());
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, `${top}.ports.json`), 'utf8')) as { top: string; files: string[] };
  expect(files, 'same files and order as the port manifest (leaves first)').toEqual(manifest.files);
  expect(Object.keys(core.targets).sort()).toEqual(['default', 'lint', 'sim']);
  for (const [name, t] of Object.entries(core.targets)) {
    expect(t.toplevel, name).toBe(top);
    for (const fs_ of t.filesets) expect(core.filesets[fs_], `${name} uses fileset ${fs_}`).toBeDefined();
  }
  expect(core.targets['lint']!.default_tool).toBe('verilator');
  expect(core.targets['lint']!.tools!.verilator!.mode).toBe('lint-only');
  expect(core.targets['lint']!.tools!.verilator!.verilator_options).toContain('-Wall');
  expect(core.targets['sim']!.default_tool).toBe('verilator');
  expect(core.targets['sim']!.tools!.verilator!.mode).toBe('cc');
  return core;
}

describe('nicgen gen <top> --set', () => {
  it('nic_top --set dataWidth=512 --set numQp=8: a self-contained folder with a FuseSoC core', () => {
    const out = path.join(tmp(), 'nic512');
    const r = nicgen('gen', 'nic_top', '--set', 'dataWidth=512', '--set', 'numQp=8', '--out', out);
    expect(r.code, r.stderr).toBe(0);
    const top = 'nic_top_data_width512_num_qp8';
    const core = checkCore(out, top);
    expect(core.description).toMatch(/dataWidth=512, numQp=8, numMr=16, readsPerQp=2, readContexts=0, trackerEntries=0, macClock=core/);
    const manifest = JSON.parse(fs.readFileSync(path.join(out, `${top}.ports.json`), 'utf8')) as { params: Record<string, number | string>; ports: { name: string; width: number }[] };
    expect(manifest.params).toEqual({ dataWidth: 512, numQp: 8, numMr: 16, readsPerQp: 2, readContexts: 0, trackerEntries: 0, macClock: 'core' });
    expect(manifest.ports.find(p => p.name === 'm_axis_tx_tdata')?.width).toBe(512);
  }, 600_000);

  it('the core\'s files are all a tool needs: Verilator -Wall and Icarus, run inside the folder', () => {
    const dir = tmp();
    const r = nicgen('gen', 'sync_fifo', '--set', 'width=12', '--set', 'depth=8', '--out', dir);
    expect(r.code, r.stderr).toBe(0);
    const top = 'sync_fifo_depth8_width12';
    const files = checkCore(dir, top).filesets['rtl']!.files;
    const v = spawnSync('verilator', ['--lint-only', '-Wall', '--top-module', top, ...files], { cwd: dir, encoding: 'utf8' });
    expect(v.status, v.stderr).toBe(0);
    const i = spawnSync('iverilog', ['-g2005', '-o', '/dev/null', '-s', top, ...files], { cwd: dir, encoding: 'utf8' });
    expect(i.status, i.stderr).toBe(0);
  }, 600_000);

  it('a parameter out of range, unknown or of the wrong type: one line, exit 1, nothing written', () => {
    const cases: [string[], RegExp][] = [
      [['nic_top', '--set', 'numQp=512'], /^nicgen gen nic_top --set numQp=512 --out \S+: error \[params\]: nic_top: numQp = 512 is out of range \(allowed: 1\.\.256\)$/],
      [['nic_top', '--set', 'dataWidth=96'], /nic_top: dataWidth = 96 is out of range \(allowed: 64, 128, 256 or 512\)$/],
      [['nic_top', '--set', 'numQp=4', '--set', 'readsPerQp=5'], /nic_top: readsPerQp = 5 is not allowed with these parameters \(allowed: 1\.\.4\)/],
      [['nic_top', '--set', 'numQps=8'], /nic_top: no parameter 'numQps' \(parameters: dataWidth, numQp, numMr, readsPerQp, readContexts, trackerEntries, macClock\)$/],
      [['nic_top', '--set', 'numQp=eight'], /nic_top: --set numQp=eight: numQp is a number \(default 4\)$/],
      [['nic_wqe_fetch', '--set', 'dataWidth=32'], /nic_wqe_fetch: dataWidth = 32 is out of range \(allowed: 64, 128, 256 or 512\)$/],
      [['skid_buffer', '--set', 'width=0'], /skid_buffer: width = 0 is out of range \(allowed: 1\.\.65536\)$/],
      [['nic_regs', '--set', 'numQp=0'], /nic_regs: numQp = 0 is out of range \(allowed: 1\.\.\d+\)$/],
    ];
    for (const [args, want] of cases) {
      const out = path.join(tmp(), 'never');
      const r = nicgen('gen', ...args, '--out', out);
      const what = args.join(' ');
      expect(r.code, what).toBe(1);
      expect(r.stderr.trim().split('\n'), `${what}: one line`).toHaveLength(1);
      expect(r.stderr.trim(), what).toMatch(want);
      expect(r.stderr, `${what}: no stack trace`).not.toMatch(/\n\s+at /);
      expect(fs.existsSync(out), `${what}: nothing written`).toBe(false);
    }
  }, 600_000);

  it('the same error for a parameter in a tops file, at the line of its top(...)', () => {
    const file = path.join(fixtures, 'param-tops.ts');
    const line = fs.readFileSync(file, 'utf8').split('\n').findIndex(l => l.includes('@here:numQp')) + 1;
    const out = path.join(tmp(), 'never');
    const r = nicgen('gen', '--tops', file, '--out', out);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toMatch(new RegExp(`^tb/tests/cli/fixtures/param-tops\\.ts:${line}:\\d+: error \\[params\\]: nic_top: numQp = 512 is out of range \\(allowed: 1\\.\\.256\\)$`));
    expect(fs.existsSync(out)).toBe(false);
  }, 600_000);
});
