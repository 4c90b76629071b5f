// The requester's WQE path measured flattened (docs/synth.md, "The WQE path across module
// boundaries"): nic_top's WQE queue (with its bypass) -> nic_req_tx -> nic_ack_tracker, and the
// two places a WQE decision runs on into other modules in nic_top:
//   - the tracker's s_req (a ReqEntry's PSNs into the tracker's post: proxy (b') of nic_top);
//   - req_tx's s_rewind_ready, through nic_top's rewind fork, into nic_read_resp_rx (it takes no
//     header while a rewind is offered), whose s_hdr_ready is nic_responder's room to decide a
//     header, whose `drop` goes into nic_top's RX_DROP_OTHER counter merge (proxy (a) of
//     nic_top once nic_dma_read's AR is sliced).
// Wired as nic_top wires them (rewindFork, mergePulses, the queue's bypass, the ctx lanes shared
// by every stage, SQ_PSN / EXP_PSN / MSN / SQ_CI updates into the lanes); every other port of
// the four instances is a port of this module, so the register wrapper drives or captures it.
// The input s_wqe stands for u_wqe_fetch's output register (out_data_reg). nic_req_tx is built at
// dataWidth (it has no datapath: the same logic at any width), the two RX stages at rxWidth.
// Through the same `xcup-timing` flow and cache as `nicgen synth` (synth/run.ts runFlow):
//   npx tsx scripts/synth-wqe-path.ts [--dry] [--no-tracker] [dataWidth ...]      (default 512 bits, 4 QPs; RX stages at 64)

import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { emitTop } from '../gen/emit/design.ts';
import { defineModule, mux, UInt, type SignalValue, type Value } from '../gen/hdl/index.ts';
import { syncFifoRam } from '../gen/lib/fifo.ts';
import { nicAckTracker } from '../gen/nic/ack-tracker.ts';
import { ACK_TRACKER_DEPTH, rewindFork, WQE_QUEUE_DEPTH } from '../gen/nic/nic-top-build.ts';
import { nicReadRespRx } from '../gen/nic/read-resp-rx.ts';
import { nicReqTx } from '../gen/nic/req-tx.ts';
import { responder } from '../gen/nic/responder.ts';
import { link, mergePulses, port, portsOf, sink, type PortMap } from '../gen/nic/top-wiring.ts';
import { wqeStruct } from '../gen/nic/wqe.ts';
import { cacheRoot } from '../sim/cache.ts';
import { assemble } from '../synth/assemble.ts';
import { cacheKey, runFlow, toolVersions } from '../synth/run.ts';
import { subjectOf } from '../synth/session.ts';

/** Ports of an instance this module connected (the rest become its own ports). */
type Wired = { name: string; ports: PortMap; done: Set<string> };

const wqePath = defineModule('wqe_path', { dataWidth: 512, numQp: 4, rxWidth: 64, tracker: 1 }, (m, p) => {
  const W = p.dataWidth, numQp = p.numQp;
  const { clk, rst } = m.clockAndReset();
  /** This module's own ports (returned: every port must be in the IO record). */
  const io: Record<string, SignalValue> = {};
  const input = (name: string, shape: SignalValue['shape']): SignalValue => (io[name] = m.input(name, shape));
  const output = (name: string, shape: SignalValue['shape']): ReturnType<typeof m.output> => (io[name] = m.output(name, shape)) as ReturnType<typeof m.output>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const inst = (name: string, def: any, params: Record<string, unknown>): Wired => {
    const own = Object.fromEntries(Object.entries(params).filter(([k]) => k in def.defaults));
    return { name, ports: portsOf(m.instance(name, def, own), name), done: new Set() };
  };
  const all = { dataWidth: W, numQp, ctxPort: 'lanes' };
  const q = inst('u_wqe_queue', syncFifoRam, { width: wqeStruct(numQp).width, depth: WQE_QUEUE_DEPTH });
  const req = inst('u_req_tx', nicReqTx, { ...all, dmaAbort: 1 });
  // tracker 0 (--no-tracker): its ports are this module's, so its own paths (the worst once the
  // WQE path is cut) do not hide how long the WQE path still is.
  const ack = p.tracker ? inst('u_ack_tracker', nicAckTracker, { ...all, depth: ACK_TRACKER_DEPTH, entries: numQp * ACK_TRACKER_DEPTH }) : undefined;
  // nic_read_resp_rx and nic_responder at rxWidth (64): only their control is on the path (the
  // rewind, s_hdr_ready, the responder's room and drop); at 512 bits their payload datapaths made
  // the run too slow for this shared machine (no result in 24 minutes at nice 19).
  const rx = { ...all, dataWidth: p.rxWidth };
  const rrx = inst('u_read_resp_rx', nicReadRespRx, { ...rx, readsPerQp: 2, contexts: 0 });
  const rsp = inst('u_responder', responder, rx);
  const mark = (w: Wired, ...names: string[]): void => { for (const n of names) w.done.add(n); };
  const ln = (a: Wired, ap: string, b: Wired, bp: string): void => {
    for (const x of link(a.ports, ap, b.ports, bp)) { mark(a, `${ap}_${x}`); mark(b, `${bp}_${x}`); }
  };
  const drive = (to: Wired, toPort: string, v: Value): void => { sink(to.ports, toPort).set(v); mark(to, toPort); };
  const read = (from: Wired, name: string): SignalValue => { mark(from, name); return port(from.ports, name); };

  // ---- the WQE queue and its bypass, as nic_top's wqeQueue (fetch's output register = s_wqe)
  const Wqe = wqeStruct(numQp);
  const sWqeValid = input('s_wqe_valid', UInt(1));
  const sWqeData = input('s_wqe_data', UInt(Wqe.width));
  const sWqeReady = output('s_wqe_ready', UInt(1));
  const reqReady = read(req, 's_wqe_ready');
  const bypass = m.let('wqe_bypass', read(q, 'count').eq(0).land(reqReady));
  drive(q, 's_data', sWqeData);
  drive(q, 's_valid', sWqeValid.land(bypass.lnot()));
  sWqeReady.set(read(q, 's_ready').lor(bypass));
  drive(req, 's_wqe_data', mux(read(q, 'm_valid'), read(q, 'm_data'), sWqeData).as(Wqe));
  drive(req, 's_wqe_valid', read(q, 'm_valid').lor(bypass.land(sWqeValid)));
  drive(q, 'm_ready', reqReady);
  mark(q, 'full', 'empty');
  m.unused(port(q.ports, 'full'), 'as in nic_top');
  m.unused(port(q.ports, 'empty'), 'as in nic_top');

  // ---- req_tx <-> tracker, rewinds, READ contexts, responder -> read_resp_rx (as nic_top) ----
  // (In nic_top's order: the emitted module, and with it the synthesis, is the same as measured.)
  if (ack) ln(ack, 's_req', req, 'm_req');
  // Without the tracker its rewind comes from this module's ports (m_rewind_*).
  const rewindSrc = ack ? ack.ports : portsOf({
    v: input('m_rewind_valid', UInt(1)), d: input('m_rewind_data', port(req.ports, 's_rewind_data').shape), r: output('m_rewind_ready', UInt(1)),
  });
  rewindFork(m, rewindSrc, [req.ports, rrx.ports]);
  if (ack) mark(ack, 'm_rewind_valid', 'm_rewind_ready', 'm_rewind_data');
  for (const w of [req, rrx]) mark(w, 's_rewind_valid', 's_rewind_ready', 's_rewind_data');
  if (ack) {
    drive(ack, 's_park', read(req, 'm_park'));
    drive(ack, 'tp_qp', read(req, 'tp_qp'));
    drive(req, 'tp', read(ack, 'tp'));
    drive(ack, 'rewind_high', read(req, 'rewind_high'));
    drive(req, 'read_busy', read(ack, 'read_busy'));
  }
  const ctxRoom = read(rrx, 'ctx_room');
  if (ack) drive(ack, 'ctx_room', ctxRoom);
  drive(req, 'ctx_room', ctxRoom);
  ln(rrx, 's_ctx', req, 'm_read_ctx');
  if (ack) {
    ln(ack, 's_ack', rrx, 'm_ack');
    ln(ack, 's_read_done', rrx, 'm_done');
  }
  ln(rrx, 's_hdr', rsp, 'm_rresp_hdr');
  ln(rrx, 's_payload', rsp, 'm_rresp_payload');

  // ---- RX_DROP_OTHER as nic_top merges it (the other two sources are this module's inputs) ----
  const chkDrop = input('chk_drop_other', UInt(1));
  const prsDrop = input('prs_drop', UInt(1));
  const dropPulse = output('inc_rx_drop_other', UInt(1));
  dropPulse.set(mergePulses(m, 'rx_drop_other', [chkDrop, prsDrop, read(rsp, 'drop')]));

  // ---- the QP context lanes: one set for every stage; the datapath's updates as in nic_top ----
  const hwFrom: Record<string, [Wired, string]> = {
    ctx_hw_sq_psn: [req, 'sq_psn_upd'], ctx_hw_exp_psn: [rsp, 'exp_psn_upd'], ctx_hw_msn: [rsp, 'msn_upd'], ...(ack ? { ctx_hw_sq_ci: [ack, 'sq_ci_upd'] as [Wired, string] } : {}),
  };
  const stages = ack ? [req, ack, rrx, rsp] : [req, rrx, rsp];
  const lanes = new Map<string, SignalValue>();
  for (const w of stages) {
    for (const [name, s] of w.ports) {
      if (!name.startsWith('ctx_') || w.done.has(name)) continue;
      const from = hwFrom[name];
      let v = lanes.get(name);
      if (!v) {
        v = from ? port(from[0].ports, from[1]) : input(name, s.shape);
        lanes.set(name, v);
      }
      drive(w, name, v);
    }
  }
  // Updates that feed the lanes stay visible (nic_regs takes them in nic_top).
  for (const [from, name] of Object.values(hwFrom)) {
    if (from.done.has(name)) continue;
    mark(from, name);
    output(`${from.name.replace(/^u_/, '')}_${name}`, port(from.ports, name).shape).set(port(from.ports, name));
  }

  // ---- everything else: a port of this module ----
  for (const w of [q, ...stages]) {
    for (const [name, s] of w.ports) {
      if (w.done.has(name)) continue;
      const own = `${w.name.replace(/^u_/, '')}_${name}`;
      if ('set' in s) drive(w, name, input(own, s.shape));
      else output(own, s.shape).set(s);
    }
  }
  return { clk, rst, ...io };
}, { doc: 'measurement top: WQE queue -> nic_req_tx -> nic_ack_tracker, rewind fork -> nic_read_resp_rx <- nic_responder, RX_DROP_OTHER merge; flattened' });

// --dry: elaborate, list the Verilog files and the cache entry (no synthesis).
const argv = process.argv.slice(2);
const dry = argv.includes('--dry');
const tracker = argv.includes('--no-tracker') ? 0 : 1;
const widths = argv.filter(a => !a.startsWith('--')).map(Number);
for (const W of widths.length ? widths : [512]) {
  const emitted = emitTop(wqePath as never, { dataWidth: W, tracker });
  const { subject, names } = subjectOf(emitted, emitted.top);
  if (dry) {
    const file = `${subject.module}.xcup-timing.${cacheKey('xcup-timing', subject, await toolVersions())}.json`;
    const cached = existsSync(path.join(cacheRoot(), 'synth', file));
    console.log(`${subject.module}: ${[...subject.files].map(([f, t]) => `${f} (${t.split('\n').length} lines)`).join(', ')}; ${file} ${cached ? 'cached' : 'not cached'}`);
    continue;
  }
  const t0 = performance.now();
  const out = await runFlow('xcup-timing', subject, path.join(cacheRoot(), 'synth'));
  const r = assemble(subject.module, 'xcup', new Map([['xcup-timing', out]]), names);
  console.log(`${subject.module} dataWidth=${W} (${out.cached ? 'cached' : `${((performance.now() - t0) / 1000).toFixed(0)} s`}):`);
  for (const x of r.paths) {
    const fig = x.delayNs !== null ? `${x.delayNs.toFixed(2)} ns, ${x.lut} LUT + ${x.muxf} MUXF + ${x.carryChains} carry` : `${x.levels} cells`;
    const sig = (s: typeof x.start): string => (s ? s.signal : '?');
    console.log(`  (${x.proxy}) ${fig}: ${sig(x.start)} -> ${x.through.map(t => t.signal).join(' -> ')} -> ${sig(x.end)}`);
  }
  // The flattened instances' nets by name, as the raw reports list them (the NameMap knows only
  // this module's own signals): sta from the end back to the start, ltp from the start.
  const named = (txt: string): string[] => [...new Set([...txt.matchAll(/u_dut\.([\w.]+(?:\[\d+\])?|[\w.]+ \[\d+\])/g)].map(x => x[1]!.replace(' [', '[')))];
  console.log(`  (a) sta, named nets from the end back: ${named((out.outputs['sta.txt'] ?? '').split(/Arrival histogram|Warning: Endpoint/)[0]!).join(' <- ')}`);
  console.log(`  (b') ltp, named nets from the start: ${named(out.outputs['ltp.txt'] ?? '').join(' -> ')}`);
  // sta's arrival histogram, its top rows (each * stands for `per` endpoints, + for fewer).
  const sta = out.outputs['sta.txt'] ?? '';
  const per = /\* represents (\d+) endpoint/.exec(sta)?.[1] ?? '?';
  const hist = [...sta.matchAll(/\(\s*(\d+),\s*(\d+)\]\s*\|(\**)(\+?)/g)].slice(0, 8);
  console.log(`  sta histogram (ps; * = ${per} endpoints): ${hist.map(h => `${h[2]}-${h[1]} ${h[3]}${h[4]}`).join(', ')}`);
}
