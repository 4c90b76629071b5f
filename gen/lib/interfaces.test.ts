import { describe, expect, it } from 'vitest';
import { defineModule, UInt, Struct } from '../hdl/index.ts';
import { axi4, axiLite, axiStream, connect, stream, unusedFields } from './interfaces.ts';
import { skidBuffer } from './skid.ts';
import { emitToDir, verilatorLint } from './lint-helper.ts';

// Two skid buffers in a row, joined by `connect`, with stream ports on both ends.
const twoSlices = defineModule('two_slices', { width: 8 }, (m, p) => {
  const { clk, rst } = m.clockAndReset();
  const bus = stream(UInt(p.width));
  const s = bus.sink(m, 's');
  const o = bus.source(m, 'm');
  const a = m.instance('u_a', skidBuffer, { width: p.width });
  const b = m.instance('u_b', skidBuffer, { width: p.width });
  connect(bus, s, a.s);
  connect(bus, a.m, b.s);
  connect(bus, b.m, o);
  return { clk, rst, s, m: o };
});

// An AXI-Stream sink with tuser, an AXI4 master and an AXI4-Lite slave that does nothing useful.
const Hdr = Struct('hdr', { op: UInt(4), len: UInt(12) });
const ports = defineModule('iface_ports', {}, m => {
  const axis = axiStream({ dataWidth: 64, userWidth: 1 }).sink(m, 's_axis');
  const axi = axi4({ idWidth: 4, addrWidth: 64, dataWidth: 512 }).source(m, 'm_axi');
  const lite = axiLite({ addrWidth: 16, dataWidth: 32 }).sink(m, 's_axil');
  const hdr = stream(Hdr).source(m, 'm_hdr');
  return { s_axis: axis, m_axi: axi, s_axil: lite, m_hdr: hdr };
});

describe('interface bundles', () => {
  it('name ports <prefix>_<field> with the right directions and widths', () => {
    const ir = ports.elaborate();
    const dir = (n: string): string => { const s = ir.ports.find(p => p.signal.name === n)!.signal; return `${s.kind}:${s.shape.width}`; };
    expect(dir('s_axis_tdata')).toBe('input:64');
    expect(dir('s_axis_tkeep')).toBe('input:8');
    expect(dir('s_axis_tready')).toBe('output:1');
    expect(dir('s_axis_tuser')).toBe('input:1');
    expect(dir('m_axi_awaddr')).toBe('output:64');
    expect(dir('m_axi_wstrb')).toBe('output:64');
    expect(dir('m_axi_rdata')).toBe('input:512');
    expect(dir('m_axi_bready')).toBe('output:1');
    expect(dir('s_axil_rdata')).toBe('output:32');
    expect(dir('s_axil_awvalid')).toBe('input:1');
    expect(dir('m_hdr_data')).toBe('output:16');
    expect(ir.ports.find(p => p.signal.name === 'm_axi_arlen')!.path).toEqual(['m_axi', 'arlen']);
    expect(axiStream({ dataWidth: 8, keep: false, last: false }).spec).not.toHaveProperty('tkeep');
  });

  it('connect joins instances; the result lints clean', () => {
    verilatorLint(emitToDir(twoSlices, { width: 12 }));
  });

  it('unusedFields names a missing field', () => {
    const bad = defineModule('bad_unused', {}, m => {
      const s = stream(UInt(4)).sink(m, 's');
      unusedFields(m, s, ['nope'], 'test');
      return { s };
    });
    expect(() => bad.elaborate()).toThrow(/no field 'nope'/);
  });
});

describe('errors about bundle ports point at the line that created the bundle', () => {
  it('an undriven stream or AXI-Stream output, and a connect() mismatch', async () => {
    const { runPasses } = await import('../passes/index.ts');
    const { marks, fileLine } = await import('../test-support/loc.ts');
    const here = marks(import.meta.url);
    const undriven = defineModule('iface_undriven', {}, m => {
      const len = stream(UInt(12)).source(m, 'm_len'); // @here:stream
      const axis = axiStream({ dataWidth: 8, keep: false, last: false }).source(m, 'm_axis'); // @here:axis
      m.unused(len.ready, 'test');
      m.unused(axis.tready, 'test');
      return { m_len: len, m_axis: axis };
    });
    const d = runPasses(undriven.elaborate()).filter(x => x.pass === 'drivers');
    const at = (port: string): string => fileLine(d.find(x => x.message.includes(` ${port} `))!.loc);
    expect(at('m_len_data')).toBe(here.at('stream'));
    expect(at('m_len_valid')).toBe(here.at('stream'));
    expect(at('m_axis_tdata')).toBe(here.at('axis'));
    expect(d.every(x => !x.loc.file.endsWith('interfaces.ts')), 'nothing inside interfaces.ts').toBe(true);

    let err: unknown;
    try {
      defineModule('iface_mismatch', {}, m => {
        const a = axiStream({ dataWidth: 8 }).sink(m, 's_axis');
        const b = axiStream({ dataWidth: 8, keep: false }).source(m, 'm_axis');
        connect(axiStream({ dataWidth: 8 }), a as never, b as never); // @here:connect
        return { s_axis: a, m_axis: b };
      }).elaborate();
    } catch (e) { err = e; }
    expect(err).toBeInstanceOf(Error);
    expect(fileLine((err as { loc: Parameters<typeof fileLine>[0] }).loc)).toBe(here.at('connect'));
  });
});
