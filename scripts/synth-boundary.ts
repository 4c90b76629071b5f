// The TX boundary nic_packetizer -> nic_icrc_insert measured flattened (docs/synth.md,
// "Datapath stages at 512 bits"): a test module with the two instanced as in nic_top, through
// the same `xcup-timing` flow and cache as `nicgen synth` (synth/run.ts runFlow), so the path
// that crosses the boundary is seen; each module alone in the register wrapper hides it.
//   npx tsx scripts/synth-boundary.ts [pair|nic_rx_parser|nic_packetizer|nic_icrc_insert] [--rev REV] [dataWidth ...]
// (default: pair at 512 bits). Only the xcup-timing flow (proxies (a) and (b')) runs.

import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { emitTop } from '../gen/emit/design.ts';
import { defineModule } from '../gen/hdl/index.ts';
import { connect, stream } from '../gen/lib/interfaces.ts';
import { icrcInsert } from '../gen/nic/icrc-insert.ts';
import { packetizer } from '../gen/nic/packetizer.ts';
import { rxParser } from '../gen/nic/rx-parser.ts';
import { byteStream, frameStream, TxPktCmd } from '../gen/nic/types.ts';
import { cacheRoot } from '../sim/cache.ts';
import { assemble } from '../synth/assemble.ts';
import { runFlow } from '../synth/run.ts';
import { subjectOf } from '../synth/session.ts';

const pair = defineModule('tx_boundary_pair', { dataWidth: 512 }, (m, p) => {
  const W = p.dataWidth;
  const { clk, rst } = m.clockAndReset();
  const cmd = stream(TxPktCmd), bytes = byteStream(W), frames = frameStream(W);
  const sCmd = cmd.sink(m, 's_cmd'), sPay = bytes.sink(m, 's_payload');
  const mAxis = frames.source(m, 'm_axis');
  const pk = m.instance('u_pk', packetizer, { dataWidth: W });
  const ins = m.instance('u_ins', icrcInsert, { dataWidth: W });
  connect(cmd, sCmd as never, pk.s_cmd as never);
  connect(bytes, sPay as never, pk.s_payload as never);
  connect(frames, pk.m_axis as never, ins.s_axis as never);
  connect(frames, ins.m_axis as never, mAxis as never);
  const err = m.output('err_payload', pk.err_payload.shape);
  err.set(pk.err_payload);
  return { clk, rst, s_cmd: sCmd, s_payload: sPay, m_axis: mAxis, err_payload: err };
}, { doc: 'measurement top: nic_packetizer -> nic_icrc_insert, flattened' });

// `pair` (the default) or one stage of the TX/RX path alone, as `nicgen synth --top` measures it.
const stages: Record<string, () => ReturnType<typeof defineModule>> = { pair: () => pair, nic_rx_parser: () => rxParser, nic_packetizer: () => packetizer, nic_icrc_insert: () => icrcInsert };
const args = process.argv.slice(2);
const revAt = args.indexOf('--rev');
const rev = revAt < 0 ? undefined : args.splice(revAt, 2)[1];

/** One line and exit 2 instead of a git stack trace (a bad `--rev`, or rtl/FILE not in it). */
function fail(msg: string): never {
  console.error(`synth-boundary: ${msg}`);
  process.exit(2);
}
/** `git show REV:rtl/FILE`, git's own stderr kept off the terminal. */
function rtlAt(r: string, file: string): string {
  try {
    return execFileSync('git', ['show', `${r}:rtl/${file}`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch {
    fail(`--rev ${r}: rtl/${file} is not in that revision`);
  }
}
if (revAt >= 0) {
  if (rev === undefined || rev.startsWith('-')) fail('--rev needs a revision (a commit, branch or tag)');
  try {
    execFileSync('git', ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`], { stdio: 'ignore' });
  } catch {
    fail(`--rev ${rev}: not a commit in this repository`);
  }
}
const what = args[0] !== undefined && args[0] in stages ? args.shift()! : 'pair';
const widths = args.map(Number);
for (const W of widths.length ? widths : [512]) {
  const emitted = emitTop(stages[what]!() as never, { dataWidth: W });
  const measured = subjectOf(emitted, emitted.top);
  const { names } = measured;
  // --rev REV: the committed rtl/ of REV instead of today's generators (a "before" figure of a
  // module at its default parameters, which is what rtl/ holds; same ports as today).
  const subject = rev === undefined ? measured.subject
    : { ...measured.subject, files: new Map([...measured.subject.files.keys()].map(f => [f, rtlAt(rev, f)])) };
  const t0 = performance.now();
  const out = await runFlow('xcup-timing', subject, path.join(cacheRoot(), 'synth'));
  const r = assemble(subject.module, 'xcup', new Map([['xcup-timing', out]]), names);
  console.log(`${subject.module} dataWidth=${W} (${out.cached ? 'cached' : `${((performance.now() - t0) / 1000).toFixed(0)} s`}):`);
  for (const q of r.paths) {
    const fig = q.delayNs !== null ? `${q.delayNs.toFixed(2)} ns, ${q.lut} LUT + ${q.muxf} MUXF + ${q.carryChains} carry` : `${q.levels} cells`;
    const sig = (x: typeof q.start): string => (x ? x.signal : '?');
    console.log(`  (${q.proxy}) ${fig}: ${sig(q.start)} -> ${q.through.map(t => t.signal).join(' -> ')} -> ${sig(q.end)}`);
  }
  // Flattened submodules' registers are named in the raw report (u_dut.<instance>.<reg>): its
  // first and last named cells, for the pair, whose NameMap knows only the top's own signals.
  const raw = [...(out.outputs['sta.txt'] ?? '').matchAll(/u_dut\.([\w.]+(?:\[\d+\])?)/g)].map(x => x[1]!);
  if (raw.length) console.log(`  sta report, named cells from end to start: ${[...new Set(raw)].join(' <- ')}`);
}
