// The synthesis flows behind each proxy (docs/synth.md "Method"), as Yosys scripts over the
// wrapped module. Every flow reads the same files and writes what it measured to named files
// in its working folder; synth/run.ts runs them and synth/measure.ts reads the files.
//
// Bump FLOW_VERSION whenever a script changes what it measures: it is part of the cache key
// and of every recorded figure (synth/anchors.ts), so old numbers are never mixed with new.

import { WRAPPER_TOP } from './wrapper.ts';

export const FLOW_VERSION = 1;

export type Target = 'xcup' | 'ice40' | 'generic';
export const targets: readonly Target[] = ['xcup', 'ice40', 'generic'];

/** One synthesis run: `xcup-res` resources, `xcup-timing` proxies (a) and (b'), `generic`
 *  proxy (b) and LUT6 counts, `ice40` resources and proxy (c). */
export type FlowName = 'xcup-res' | 'xcup-timing' | 'generic' | 'ice40';

export const flowsOf: Record<Target, readonly FlowName[]> = {
  xcup: ['xcup-res', 'xcup-timing', 'generic'],
  ice40: ['ice40'],
  generic: ['generic'],
};

/** Output files each flow writes (in its working folder). */
export const OUT = {
  stat: 'stat.txt',
  sta: 'sta.txt',
  ltp: 'ltp.txt',
  json: 'ice40.json',
} as const;

const read = (files: readonly string[]): string => `read_verilog -DSYNTHESIS ${files.join(' ')}`;

/** The Yosys script of `flow` for module `dut` over `files` (compile order, the wrapper last).
 *  Resources come from the module alone (`stat.txt`); timing from the module in its wrapper. */
export function yosysScript(flow: FlowName, files: readonly string[], dut: string): string {
  const top = WRAPPER_TOP;
  // Read once; the module alone and the wrapped module are synthesized from the same copy.
  const both = (wrapped: readonly string[], alone: readonly string[]): string =>
    [read(files), 'design -save sources', ...wrapped, 'design -load sources', ...alone].join('\n');
  switch (flow) {
    case 'xcup-res':
      // Resources: the default abc mapping, as a Xilinx flow would count them.
      return [read(files), `synth_xilinx -family xcup -top ${dut} -flatten -noiopad`, `tee -q -o ${OUT.stat} stat`].join('\n');
    case 'xcup-timing':
      // Proxy (a): abc9 with the xc7 delays of cells_sim.v; flip-flops renamed after the
      // register they hold so a path's ends are named. Proxy (b'): ltp over LUT/MUXF/carry.
      return [read(files), `synth_xilinx -family xcup -top ${top} -flatten -noiopad -abc9 -nosrl`,
        'rename -wire t:FD*', 'read_verilog -lib -specify +/xilinx/cells_sim.v',
        `tee -q -o ${OUT.sta} sta`, `tee -q -o ${OUT.ltp} ltp -noff t:LUT* t:CARRY* t:MUXF* t:INV w:*`].join('\n');
    case 'generic': {
      // Proxy (b): coarse generic synthesis (memories stay cells), LUT6 mapping, longest path.
      const lut6 = (t: string): string[] => [`synth -top ${t} -flatten -run :fine`, 'techmap', 'opt -fast', 'abc -lut 6', 'opt_clean'];
      return both([...lut6(top), `tee -q -o ${OUT.ltp} ltp -noff`], [...lut6(dut), `tee -q -o ${OUT.stat} stat`]);
    }
    case 'ice40':
      // Flip-flops renamed after their register, so nextpnr's path ends carry its name.
      return both([`synth_ice40 -top ${top} -flatten`, 'rename -wire t:SB_DFF*', `write_json ${OUT.json}`], [`synth_ice40 -top ${dut} -flatten`, `tee -q -o ${OUT.stat} stat`]);
  }
}

/** iCE40 HX8K (ct256): nextpnr places and routes the wrapper; fixed seed, so it is repeatable. */
export const ICE40_DEVICE = { args: ['--hx8k', '--package', 'ct256'], lcs: 7680, name: 'iCE40 HX8K' } as const;

export function nextpnrArgs(json: string): string[] {
  return [...ICE40_DEVICE.args, '--json', json, '--seed', '1', '--pcf-allow-unconstrained', '--timing-allow-fail'];
}
