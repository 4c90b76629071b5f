// Clock-domain crossing for single bits and slow buses.
//
// syncBits: the classic synchronizer, `stages` flip-flops in the destination clock domain
//   (two by default) with ASYNC_REG set, so Vivado places them together and its timing and CDC
//   reports know them. Each bit is synchronized on its own: use it for single bits, levels that
//   change rarely, or Gray-coded counters (one bit changes at a time), never for a bus whose
//   bits change together. Latency 2-3 destination cycles; a pulse shorter than a destination
//   period can be missed (send a level or a toggle instead).
//
// syncHandshake: a word at a time from one domain to the other, for slow buses (configuration,
//   status, counters). The source side latches the word and flips a request toggle; the toggle
//   is synchronized into the destination, which then captures the word (stable since the
//   toggle flipped) and offers it as a ready/valid stream; when it is taken, an acknowledge
//   toggle goes back through another synchronizer and the source side is ready again. One word
//   per about 2 x stages cycles of each clock plus the time the destination takes to accept.
//   Both resets must be asserted together (a word in flight is lost otherwise).
//
// The synchronizers mark their first flop's input with m.crossing(), so the domains check
// accepts values of any clock there and reports every crossing that goes around them.

import { Bool, Clock, DslError, UInt, defineModule, type ModuleBuilder, type Reg, type Sig, type UIntShape, intIn, oneOf } from '../hdl/index.ts';
import type { Domain } from '../hdl/ir.ts';
import { stream } from './interfaces.ts';
import { positiveInt } from './util.ts';

export type SyncBitsParams = {
  /** Bits synchronized side by side, each on its own. */
  width: number;
  /** Flip-flops in the destination domain, 2..4. */
  stages: number;
};

/** Flip-flops of a synchronizer chain carry this attribute (Vivado: keep together, CDC-aware). */
const asyncReg = { ASYNC_REG: 'TRUE' } as const;

export function checkStages(stages: number): void {
  if (!Number.isInteger(stages) || stages < 2 || stages > 4) {
    throw new DslError(`stages = ${stages}`, 'a synchronizer has 2, 3 or 4 flip-flops (2 is usual; 3 above a few hundred MHz)');
  }
}

export const syncBits = defineModule('sync_bits', { width: 1, stages: 2 } as SyncBitsParams, (m, p) => {
  positiveInt(p.width, 'width');
  checkStages(p.stages);
  const clk = m.input('clk', Clock);
  const d = m.input('d', UInt(p.width));
  const q = m.output('q', UInt(p.width));
  m.crossing(d, `asynchronous to clk: sampled by a ${p.stages}-flop synchronizer`);
  // No reset: after power-up the chain settles within `stages` cycles (as verilog-axis's sync_signal).
  let prev = m.reg('sync_reg_0', UInt(p.width), { reset: null, attributes: asyncReg });
  prev.set(d);
  for (let i = 1; i < p.stages; i++) {
    const next = m.reg(`sync_reg_${i}`, UInt(p.width), { reset: null, attributes: asyncReg });
    next.set(prev);
    prev = next;
  }
  q.set(prev);
  return { clk, d, q };
}, { doc: 'Multi-flop synchronizer for single bits or Gray-coded values (ASYNC_REG flops, no reset)', params: { rules: { width: intIn(1, 65536), stages: oneOf(2, 3, 4) } } });

export type SyncHandshakeParams = {
  /** Payload bits. */
  width: number;
  /** Synchronizer flip-flops on each toggle, 2..4. */
  stages: number;
};

/**
 * The ports of a stream from one clock domain to another, as the crossing modules have them:
 * `s_clk`, `s_rst` and the sink `s_*` in domain `s`; `m_clk`, `m_rst` and the source `m_*` in
 * domain `m` (synchronous, active-high resets).
 */
export function twoClockStream(m: ModuleBuilder, width: number) {
  const s_clk = m.input('s_clk', Clock);
  const s_rst = m.input('s_rst', Bool);
  const m_clk = m.input('m_clk', Clock);
  const m_rst = m.input('m_rst', Bool);
  const bus = stream(UInt(width));
  const s = bus.sink(m, 's');
  const o = bus.source(m, 'm');
  const src = m.domain('s', { clock: s_clk, reset: s_rst });
  const dst = m.domain('m', { clock: m_clk, reset: m_rst });
  return { clocks: { s_clk, s_rst, m_clk, m_rst }, s, o, src, dst };
}

export const syncHandshake = defineModule('sync_handshake', { width: 32, stages: 2 } as SyncHandshakeParams, (m, p) => {
  positiveInt(p.width, 'width');
  checkStages(p.stages);
  const { clocks, s, o, src, dst } = twoClockStream(m, p.width);

  // Source side: idle while the acknowledge has caught up with the request.
  const data = m.reg('data_reg', UInt(p.width), { reset: null, domain: src });
  m.crossing(data, 'held from the request toggle until its acknowledge returns; captured only after the toggle crossed');
  const req = m.reg('req_reg', Bool, { domain: src });
  const ackSync = syncChain(m, 'ack_sync', 1, p.stages, src, 'acknowledge toggle from the m_clk domain');
  const idle = m.let('s_idle', req.eq(ackSync.q));
  s.ready.set(idle);
  m.if(s.valid.land(idle), () => {
    data.set(s.data);
    req.set(req.lnot());
  });

  // Destination side: a new request toggle means a new word in data_reg.
  const reqSync = syncChain(m, 'req_sync', 1, p.stages, dst, 'request toggle from the s_clk domain');
  const seen = m.reg('req_seen_reg', Bool, { domain: dst });
  const out = m.reg('m_data_reg', UInt(p.width), { reset: null, domain: dst });
  const valid = m.reg('m_valid_reg', Bool, { domain: dst });
  const ack = m.reg('ack_reg', Bool, { domain: dst });
  m.if(valid.lnot().land(reqSync.q.ne(seen)), () => {
    out.set(data);
    valid.set(1);
    seen.set(reqSync.q);
  }).elif(valid.land(o.ready), () => {
    valid.set(0);
    ack.set(seen);
  });
  o.valid.set(valid);
  o.data.set(out);
  reqSync.d.set(req);
  ackSync.d.set(ack);
  return { ...clocks, s, m: o };
}, { doc: 'Word-at-a-time clock-domain crossing with a request/acknowledge toggle handshake (slow buses)', params: { rules: { width: intIn(1, 65536), stages: oneOf(2, 3, 4) } } });

/**
 * A synchronizer chain inside a module: `stages` registers of `width` bits in `domain` (reset
 * to 0 with it), ASYNC_REG set. Drive `d` from the other domain; `q` is its value in `domain`.
 * Only for single bits and Gray-coded values (see syncBits).
 */
export function syncChain(m: ModuleBuilder, name: string, width: number, stages: number, domain: Domain, why: string): { d: Sig<UIntShape>; q: Reg<UIntShape> } {
  checkStages(stages);
  const d = m.wire(`${name}_d`, UInt(width));
  m.crossing(d, why);
  let prev = m.reg(`${name}_reg_0`, UInt(width), { domain, attributes: asyncReg });
  prev.set(d);
  for (let i = 1; i < stages; i++) {
    const next = m.reg(`${name}_reg_${i}`, UInt(width), { domain, attributes: asyncReg });
    next.set(prev);
    prev = next;
  }
  return { d, q: prev };
}
