// Test-only top for the framing stages: packetizer → ICRC insert → ICRC check → RX parser,
// with a "break" at each junction. With jN_brk = 0 the stages are chained; with jN_brk = 1
// the upstream stage's output goes to the jN_out ports and the downstream stage's input
// comes from the jN_in ports. One Verilator build per data width serves every framing test
// (unit tests of each stage and the loop), instead of one build per stage.

import { Bool, defineModule, mux, UInt, type ModuleBuilder, type Value } from '../../../gen/hdl/index.ts';
import { connect, stream, type Bundle, type AxisSpec, type ConsumerView, type ProducerView } from '../../../gen/lib/interfaces.ts';
import { icrcCheck } from '../../../gen/nic/icrc-check.ts';
import { icrcInsert } from '../../../gen/nic/icrc-insert.ts';
import { packetizer } from '../../../gen/nic/packetizer.ts';
import { rxFrameStream } from '../../../gen/nic/rx-frame.ts';
import { rxParser } from '../../../gen/nic/rx-parser.ts';
import { byteStream, frameStream, RxPktHdr, TxPktCmd } from '../../../gen/nic/types.ts';

export type FramingTopParams = { dataWidth: number; bufferBytes: number };

/** Join producer → consumer, or split them onto TB ports when `brk` is high. */
function junction(m: ModuleBuilder, bundle: Bundle<AxisSpec>, name: string, from: ProducerView<AxisSpec>, to: ConsumerView<AxisSpec>) {
  const brk = m.input(`${name}_brk`, Bool);
  const out = bundle.source(m, `${name}_out`);
  const inp = bundle.sink(m, `${name}_in`);
  const f = from as unknown as Record<string, Value>;
  const t = to as unknown as Record<string, Value & { set(v: Value | number): void }>;
  const o = out as unknown as Record<string, Value & { set(v: Value | number): void }>;
  const i = inp as unknown as Record<string, Value & { set(v: Value | number): void }>;
  for (const key of ['tdata', 'tkeep', 'tlast', 'tuser'] as const) {
    if (!f[key]) continue;
    t[key]!.set(mux(brk, i[key]!, f[key]!));
    o[key]!.set(f[key]!);
  }
  t['tvalid']!.set(mux(brk, i['tvalid']!, f['tvalid']!));
  o['tvalid']!.set(brk.land(f['tvalid']!));
  (from.tready).set(mux(brk, o['tready']!, t['tready']!));
  i['tready']!.set(brk.land(t['tready']!));
  return { brk, out, in: inp };
}

export const framingTop = defineModule('framing_chain_tb', { dataWidth: 64, bufferBytes: 16384 } as FramingTopParams, (m, p) => {
  const W = p.dataWidth;
  const { clk, rst } = m.clockAndReset();
  const sCmd = stream(TxPktCmd).sink(m, 's_cmd');
  const sPay = byteStream(W).sink(m, 's_payload');
  const mHdr = stream(RxPktHdr).source(m, 'm_hdr');
  const mPay = byteStream(W).source(m, 'm_payload');
  const pkErr = m.output('pk_err', Bool);
  const chkDrop = m.output('chk_drop_valid', Bool);
  const chkReason = m.output('chk_drop_reason', UInt(3));
  const chkOvf = m.output('chk_overflow', Bool);
  const prsDrop = m.output('prs_drop_valid', Bool);
  const prsReason = m.output('prs_drop_reason', UInt(3));

  const pk = m.instance('u_pk', packetizer, { dataWidth: W });
  const ins = m.instance('u_ins', icrcInsert, { dataWidth: W });
  const chk = m.instance('u_chk', icrcCheck, { dataWidth: W, bufferBytes: p.bufferBytes });
  const prs = m.instance('u_prs', rxParser, { dataWidth: W });

  pk.s_cmd.data.set(sCmd.data); pk.s_cmd.valid.set(sCmd.valid); sCmd.ready.set(pk.s_cmd.ready);
  connect(byteStream(W), sPay as never, pk.s_payload as never);
  const j1 = junction(m, frameStream(W), 'j1', pk.m_axis as never, ins.s_axis as never);
  const j2 = junction(m, frameStream(W), 'j2', ins.m_axis as never, chk.s_axis_rx as never);
  const j3 = junction(m, rxFrameStream(W), 'j3', chk.m_axis as never, prs.s_axis as never);
  mHdr.data.set(prs.m_hdr.data); mHdr.valid.set(prs.m_hdr.valid); prs.m_hdr.ready.set(mHdr.ready);
  connect(byteStream(W), prs.m_payload as never, mPay as never);
  pkErr.set(pk.err_payload);
  chkDrop.set(chk.drop_valid); chkReason.set(chk.drop_reason); chkOvf.set(chk.overflow);
  prsDrop.set(prs.drop_valid); prsReason.set(prs.drop_reason);

  return {
    clk, rst, s_cmd: sCmd, s_payload: sPay, m_hdr: mHdr, m_payload: mPay,
    j1_brk: j1.brk, j1_out: j1.out, j1_in: j1.in, j2_brk: j2.brk, j2_out: j2.out, j2_in: j2.in, j3_brk: j3.brk, j3_out: j3.out, j3_in: j3.in,
    pk_err: pkErr, chk_drop_valid: chkDrop, chk_drop_reason: chkReason, chk_overflow: chkOvf, prs_drop_valid: prsDrop, prs_drop_reason: prsReason,
  };
}, { doc: 'test top: the four framing stages, chained, with breakable junctions' });
