// m.cover: emitted for Verilator coverage only (inside `ifdef VERILATOR`, counted outside
// reset), passes the three gates, is invisible to synthesis (same Yosys netlist as without),
// lands in the manifest, and bad uses fail at the user's line.

import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { Bool, Clock, DesignErrors, DslError, UInt, defineModule } from '../hdl/index.ts';
import { fileLine, marks } from '../test-support/loc.ts';
import { runGates, writeVerilog } from '../test-support/gates.ts';
import { emitTop } from './index.ts';

const here = marks(import.meta.url);

/** A counter with cover points at top level, under a condition and in a second domain;
 *  `covers: false` gives the same logic without them. */
const coverDesign = (covers: boolean) => defineModule(covers ? 'cover_demo' : 'cover_demo_plain', {}, m => {
  const { clk, rst } = m.clockAndReset();
  const clk2 = m.input('clk2', Clock);
  const en = m.input('en', Bool);
  const count = m.output('count', UInt(4));
  const other = m.domain('other', { clock: clk2 });
  const value = m.reg('value', UInt(4), { reset: 0 });
  m.if(en, () => {
    value.set(value.addw(1));
    if (covers) m.cover(value.eq(15), 'wraps'); // @here:wraps
  });
  if (covers) {
    m.cover(en.lnot(), 'idle');
    m.cover(value.eq(7), 'seven_fast', other);
  } else {
    m.unused(clk2, 'only the cover points read it');
  }
  count.set(value);
  return { clk, rst, clk2, en, count };
});

function thrown(f: () => unknown): Error {
  try { f(); } catch (e) { return e as Error; }
  throw new Error('expected an error');
}

describe('m.cover', () => {
  const out = emitTop(coverDesign(true));
  const text = out.files.get('cover_demo.v')!;

  it('is emitted inside `ifdef VERILATOR, per clock domain, gated by reset, with the TS location', () => {
    const body = text.replace(/\/\/ \S+\.ts:\d+:\d+/g, '// @loc');
    expect(body).toContain([
      '`ifdef VERILATOR',
      '// cover points (Verilator coverage only), counted at each clk edge outside reset',
      'always @(posedge clk) begin',
      '    if (!rst) begin',
      '        if (en) begin',
      '            // @loc',
      "            wraps: cover (value == 4'd15);",
      '        end',
      '        // @loc',
      '        idle: cover (!en);',
      '    end',
      'end',
      '`endif',
    ].join('\n'));
    expect(body).toContain(['`ifdef VERILATOR', '// cover points (Verilator coverage only), counted at each clk2 edge outside reset',
      'always @(posedge clk2) begin', '    // @loc', "    seven_fast: cover (value == 4'd7);", 'end', '`endif'].join('\n'));
    expect(text).toContain(`// ${here.at('wraps')}:`);
  });

  it('lists each point in the manifest at its cover line and TS call', () => {
    const lines = text.split('\n');
    // Domains in declaration order: m.clockAndReset() declares the default domain (clk)
    // before `other`.
    expect(out.manifest.covers!.map(c => c.name)).toEqual(['wraps', 'idle', 'seven_fast']);
    for (const c of out.manifest.covers!) {
      expect(c.file).toBe('cover_demo.v');
      expect(c.module).toBe('cover_demo');
      expect(lines[c.line - 1]).toMatch(new RegExp(`^\\s*${c.name}: cover \\(`));
    }
    expect(out.manifest.covers![0]!.loc.startsWith(`${here.at('wraps')}:`)).toBe(true);
    // A design without cover points keeps the manifest it had before m.cover existed.
    expect('covers' in emitTop(coverDesign(false)).manifest).toBe(false);
  });

  it('passes verilator -Wall, iverilog -g2005 and yosys', () => {
    const g = runGates(out);
    expect(g.ok, g.report).toBe(true);
  });

  it('synthesis does not see it: the Yosys netlist equals the one without cover points', () => {
    const stat = (covers: boolean): string => {
      const e = emitTop(coverDesign(covers));
      const { dir, paths } = writeVerilog(e);
      const r = spawnSync('yosys', ['-p', `read_verilog -DSYNTHESIS ${paths.join(' ')}; synth -top ${e.top}; rename ${e.top} demo; stat`], { cwd: dir, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      return r.stdout.slice(r.stdout.lastIndexOf('Printing statistics.'), r.stdout.lastIndexOf('End of script.'));
    };
    const withCovers = stat(true);
    expect(withCovers).toMatch(/Number of cells: +\d+/);
    expect(withCovers).toBe(stat(false));
  });

  it('errors at the user\'s line: a condition wider than one bit, a bad name, a duplicate, a clash with a signal', () => {
    const wide = thrown(() => defineModule('t_cover_wide', {}, m => {
      const { clk, rst } = m.clockAndReset();
      const a = m.input('a', UInt(4));
      m.cover(a, 'a_set'); // @here:wide
      return { clk, rst, a };
    }).elaborate());
    expect(wide).toBeInstanceOf(DslError);
    expect(fileLine((wide as DslError).loc)).toBe(here.at('wide'));
    expect(wide.message).toMatch(/condition is 4 bits wide/);

    const badName = thrown(() => defineModule('t_cover_name', {}, m => {
      const { clk, rst } = m.clockAndReset();
      const a = m.input('a', Bool);
      m.cover(a, 'a set'); // @here:badname
      return { clk, rst, a };
    }).elaborate());
    expect(fileLine((badName as DslError).loc)).toBe(here.at('badname'));
    expect(badName.message).toMatch(/cover point name 'a set' is not a valid Verilog identifier/);

    const twice = thrown(() => emitTop(defineModule('t_cover_twice', {}, m => {
      const { clk, rst } = m.clockAndReset();
      const a = m.input('a', Bool);
      m.cover(a, 'seen'); // @here:first
      m.cover(a.lnot(), 'seen'); // @here:second
      return { clk, rst, a };
    })));
    expect(twice).toBeInstanceOf(DesignErrors);
    const [d] = (twice as DesignErrors).diagnostics;
    expect(fileLine(d!.loc)).toBe(here.at('second'));
    expect(d!.message).toContain(`cover point 'seen' in module t_cover_twice collides with a name first used at ${here.at('first')}`);

    const clash = thrown(() => emitTop(defineModule('t_cover_clash', {}, m => {
      const { clk, rst } = m.clockAndReset();
      const a = m.input('a', Bool);
      m.cover(a, 'a'); // @here:clash
      return { clk, rst, a };
    })));
    expect(fileLine((clash as DesignErrors).diagnostics[0]!.loc)).toBe(here.at('clash'));
  });
});
