// The QP context's lanes as nic_top wires them, alone on a bench: nic_regs (AXI4-Lite and the
// datapath's update lanes from the test) -> wireCtxLanes -> a probe stage whose view
// (ctx-view.ts, ctxPort 'lanes') holds every QpCtx field and shows the rows of two QPs the
// test names (rd_a, rd_b) as QpCtx structs, read combinationally as a stage reads them.

import { defineModule, pack, UInt, type ModuleBuilder } from '../../../gen/hdl/index.ts';
import { axiLite } from '../../../gen/lib/interfaces.ts';
import { HW_QP_FIELDS, QpCtx, qpErrorEvent, qpUpdate, regSlots, type QpField } from '../../../gen/nic/ctx.ts';
import { qpCtxView, type CtxPort } from '../../../gen/nic/ctx-view.ts';
import { wireCtxLanes } from '../../../gen/nic/nic-top-build.ts';
import { AXIL_ADDR_WIDTH, QP_REGS } from '../../../gen/nic/regmap.ts';
import { COUNTER_REGS, nicRegs } from '../../../gen/nic/regs.ts';
import { link, port, portsOf, sink, type PortMap } from '../../../gen/nic/top-wiring.ts';
import { qpIndexWidth } from '../../../gen/nic/types.ts';

/** Every field of QpCtx. */
export const ALL_QP_FIELDS = [...new Set(regSlots(QP_REGS).map(s => s.field))] as QpField[];

export const ctxViewProbe = defineModule('tb_ctx_view_probe', { numQp: 4, ctxPort: 'lanes' as CtxPort }, (m, p) => {
  const { clk, rst } = m.clockAndReset();
  m.unused(rst, 'memories and flip-flop vectors live in nic_regs and the view');
  const view = qpCtxView(m, p.numQp, p.ctxPort, ALL_QP_FIELDS, 'the probe shows every field');
  const rdA = m.input('rd_a', UInt(qpIndexWidth(p.numQp)));
  const rdB = m.input('rd_b', UInt(qpIndexWidth(p.numQp)));
  const rowA = m.output('row_a', QpCtx);
  const rowB = m.output('row_b', QpCtx);
  const row = (q: typeof rdA) => pack(QpCtx, Object.fromEntries(ALL_QP_FIELDS.map(f => [f, view.at(q).field(f)])) as never);
  rowA.set(row(rdA));
  rowB.set(row(rdB));
  return { clk, rst, ...view.ports, rd_a: rdA, rd_b: rdB, row_a: rowA, row_b: rowB };
}, { doc: 'test probe: a stage reading every QP context field through its view' });

export const ctxViewBench = defineModule('tb_ctx_view', { numQp: 4 }, (m, p) => {
  const { clk, rst } = m.clockAndReset();
  const s_axil = axiLite({ addrWidth: AXIL_ADDR_WIDTH, dataWidth: 32 }).sink(m, 's_axil');
  const hw = Object.fromEntries(HW_QP_FIELDS.map(f => [f, m.input(`hw_${f.toLowerCase()}`, qpUpdate(f, p.numQp))]));
  const hw_error = m.input('hw_error', qpErrorEvent(p.numQp));
  const rd_a = m.input('rd_a', UInt(qpIndexWidth(p.numQp)));
  const rd_b = m.input('rd_b', UInt(qpIndexWidth(p.numQp)));
  const row_a = m.output('row_a', QpCtx);
  const row_b = m.output('row_b', QpCtx);
  const inst = (name: string, def: Parameters<ModuleBuilder['instance']>[1], params: Record<string, unknown>): PortMap => portsOf(m.instance(name, def, params as never), name);
  const regs = inst('u_regs', nicRegs, { numQp: p.numQp, numMr: 2 });
  const probe = inst('u_probe', ctxViewProbe, { numQp: p.numQp, ctxPort: 'lanes' });
  link(regs, 's_axil', portsOf({ s_axil }), 's_axil');
  for (const f of HW_QP_FIELDS) sink(regs, `hw_${f.toLowerCase()}`).set(hw[f]!);
  sink(regs, 'hw_error').set(hw_error);
  wireCtxLanes(m, regs, [probe]);
  sink(probe, 'rd_a').set(rd_a);
  sink(probe, 'rd_b').set(rd_b);
  row_a.set(port(probe, 'row_a'));
  row_b.set(port(probe, 'row_b'));
  sink(regs, 'irq_event').set(0);
  sink(regs, 'mr_rd_en').set(0);
  sink(regs, 'mr_rd_addr').set(0);
  for (const r of COUNTER_REGS) sink(regs, `inc_${r.name.toLowerCase()}`).set(0);
  for (const x of ['cfg', 'mr_rd_data', 'doorbell_valid', 'doorbell', 'mr_changed', 'irq']) m.unused(port(regs, x), 'not part of the QP context');
  return { clk, rst, s_axil, hw_sq_ci: hw['SQ_CI']!, hw_cq_pi: hw['CQ_PI']!, hw_sq_psn: hw['SQ_PSN']!, hw_exp_psn: hw['EXP_PSN']!, hw_msn: hw['MSN']!, hw_error, rd_a, rd_b, row_a, row_b };
}, { doc: 'test top: nic_regs and a stage view of the QP context wired by its lanes, as in nic_top' });
