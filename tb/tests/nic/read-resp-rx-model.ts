// nic_read_resp_rx's test stimulus and reference model.
//
// Stimulus: READs (1-4 SGEs at random alignments, zero-length SGEs, sizes 0..maxLen, path MTU
// 256..4096 per READ, PSNs near the 2^24 wrap) on several QPs, and the events the receiver
// sees for them, merged across QPs: the READ's responses, plus duplicates (behind), packets
// ahead of the expected PSN, opcode-sequence and length errors, NAKs in and out of range,
// and ACK noise. Every READ ends exactly once (last response, error, or NAK). A READ's
// context is registered in the order of its first event, so no event waits for a context
// that waits behind it.
// ACKs/NAKs arrive on s_hdr too (opcode 0x11), in order with the responses. Rewinds (the
// tracker's go-back-N, on s_rewind) drop a QP's contexts; the READ comes back resumed:
// a context whose firstPsn is the resume PSN and startOff the bytes already landed, answered
// by the re-request (FIRST..LAST / ONLY) or by the first request's MIDDLE/LAST still on the way.
// Model: what m_dma_cmd/m_payload, m_done and m_ack (the tracker's events) must carry, in order.

import { CQE_STATUS } from '../../../gen/nic/regmap.ts';
import { LOCAL_QPN_BASE } from '../../../gen/nic/flow-types.ts';
import { nakCqeStatusOf } from '../../../gen/nic/nak-status.ts';
import { READ_RESP } from '../../../gen/nic/read-types.ts';
import type { Rng } from '../../core/rng.ts';
import { psnAdd, psnDiff } from '../../model/psn.ts';

export interface Sge { addr: bigint; len: number; lkey: number }
export interface ReadCtx { qp: number; wrId: bigint; firstPsn: number; lastPsn: number; length: number; startOff: number; pd: number; pmtu: number; numSge: number; sge: Sge[] }
export interface Hdr { opcode: number; destQpn: number; psn: number; payloadLen: number }
/** An event on s_hdr (+ payload) or s_ack; `ctx` = index of the context it must follow. */
export type Ev = { kind: 'hdr'; ctx: number; hdr: Hdr; payload: Uint8Array; note: string }
  | { kind: 'ack'; ctx: number; qp: number; psn: number; syndrome: number; note: string }
  | { kind: 'rewind'; ctx: number; qp: number; note: string };
/** An event for the ACK tracker (m_ack); rdExp matters only with rdMiss. */
export interface AckOut { qp: number; psn: number; syndrome: number; rdMiss: number; rdExp: number }
/** `optional`: a piece of a packet after the one where its READ's first DMA error happened; the
 *  receiver skips the packet when that error is back by the time it decides it (timing), and
 *  every later packet of the READ once it skipped one. */
export interface Write { va: bigint; len: number; key: number; pd: number; access: number; bytes: Uint8Array; read: number; optional: boolean }
export interface Done { qp: number; wrId: bigint; lastPsn: number; status: number; syndrome: number; ok: number }
export interface Want { writes: Write[]; dones: Done[]; lastWriteOf: number[]; acks: AckOut[] }

export interface StimOpts { reads: number; qps: number; maxLen: number; pErr: number; pNoise: number; mtus?: number[]; maxSge?: number; poison?: number; fixedLen?: number }

/** Poisoned SGEs (the DMA stand-in answers an error for any piece in them) have this bit set. */
export const POISON_BIT = 1n << 44n;

const hdrOf = (qp: number, opcode: number, psn: number, payload: Uint8Array): Hdr => ({ opcode, destQpn: LOCAL_QPN_BASE + qp, psn, payloadLen: payload.length });

function makeSges(rng: Rng, length: number, maxSge: number, poison: number): Sge[] {
  const n = rng.int(length === 0 ? 0 : 1, maxSge);
  const cuts = Array.from({ length: Math.max(0, n - 1) }, () => rng.int(0, length)).sort((a, b) => a - b);
  const bounds = [0, ...cuts, length];
  return Array.from({ length: n }, (_, i) => {
    const base = BigInt(rng.int(1, 0xffff)) << 20n | BigInt(rng.int(0, 0xfffff));
    return { addr: rng.bool(poison) ? base | POISON_BIT : base, len: bounds[i + 1]! - bounds[i]!, lkey: rng.int(1, 0xffff_ffff) >>> 0 };
  });
}

function responses(r: ReadCtx, rng: Rng): { opcode: number; psn: number; payload: Uint8Array }[] {
  const mtu = 1 << r.pmtu;
  const n = Math.max(1, Math.ceil(r.length / mtu));
  return Array.from({ length: n }, (_, k) => ({
    opcode: n === 1 ? READ_RESP.ONLY : k === 0 ? READ_RESP.FIRST : k === n - 1 ? READ_RESP.LAST : READ_RESP.MIDDLE,
    psn: psnAdd(r.firstPsn, k),
    payload: rng.bytes(Math.min(mtu, r.length - k * mtu)),
  }));
}

/** One READ's events (its context index is filled in at the merge). */
function readEvents(r: ReadCtx, rng: Rng, o: StimOpts): Ev[] {
  const pkts = responses(r, rng);
  const out: Ev[] = [];
  const hdr = (p: { opcode: number; psn: number; payload: Uint8Array }, note: string): Ev => ({ kind: 'hdr', ctx: -1, hdr: hdrOf(r.qp, p.opcode, p.psn, p.payload), payload: p.payload, note });
  const ack = (psn: number, syndrome: number, note: string): Ev => ({ kind: 'ack', ctx: -1, qp: r.qp, psn, syndrome, note });
  const err = rng.bool(o.pErr) ? rng.pick(['seq', 'len', 'nak'] as const) : null;
  const at = rng.int(0, pkts.length - 1);
  for (let k = 0; k < pkts.length; k++) {
    const p = pkts[k]!;
    if (rng.bool(o.pNoise)) out.push(rng.pick([
      () => ack(psnAdd(r.firstPsn, -rng.int(1, 50)), rng.pick([0x61, 0x62, 0x63]), 'NAK behind (ignored)'),
      () => ack(p.psn, rng.pick([0x1f, 0x60, 0x20]), 'ACK / NAK 0x60 / RNR (ignored)'),
      () => hdr({ ...p, psn: psnAdd(p.psn, rng.int(1, 3)) }, 'ahead (dropped)'),
      () => hdr(pkts[rng.int(0, k)]!, k > 0 ? 'duplicate behind (dropped)' : 'duplicate (dropped)'),
    ])());
    if (err && k === at) {
      if (err === 'nak') { out.push(ack(psnAdd(p.psn, rng.int(0, psnDiff(r.lastPsn, p.psn))), rng.pick([0x61, 0x62, 0x63]), 'NAK in range')); break; }
      if (err === 'seq') {
        const wrong = { [READ_RESP.FIRST]: READ_RESP.MIDDLE, [READ_RESP.MIDDLE]: READ_RESP.FIRST, [READ_RESP.LAST]: READ_RESP.ONLY, [READ_RESP.ONLY]: READ_RESP.LAST }[p.opcode]!;
        out.push(hdr({ ...p, opcode: wrong }, 'opcode out of sequence'));
      } else {
        const mtu = 1 << r.pmtu;
        const len = p.payload.length === mtu ? mtu - rng.int(1, 8) : Math.min(mtu, p.payload.length + rng.int(1, 8));
        out.push(hdr({ ...p, payload: rng.bytes(len) }, 'bad length'));
      }
      continue; // the rest of the READ still arrives and is dropped (behind the next READ)
    }
    out.push(hdr(p, 'response'));
  }
  if (rng.bool(o.pNoise)) out.push(hdr(pkts.at(-1)!, 'duplicate after the end (dropped)'));
  return out;
}

export function makeStim(rng: Rng, o: StimOpts): { ctxs: ReadCtx[]; events: Ev[] } {
  const mtus = o.mtus ?? [8, 9, 10, 11, 12];
  const psn = Array.from({ length: o.qps }, () => (rng.bool(0.5) ? 0xff_ffff - rng.int(0, 40) : rng.int(0, 0xff_ffff)));
  const perQp: ReadCtx[][] = Array.from({ length: o.qps }, () => []);
  for (let i = 0; i < o.reads; i++) {
    const qp = rng.int(0, o.qps - 1);
    const pmtu = rng.pick(mtus), mtu = 1 << pmtu;
    const length = o.fixedLen ?? rng.pick([0, 1, mtu - 1, mtu, mtu + 1, rng.int(0, o.maxLen), rng.int(0, o.maxLen), rng.int(0, 3 * mtu)]);
    const sge = makeSges(rng, length, o.maxSge ?? 4, o.poison ?? 0);
    const n = Math.max(1, Math.ceil(length / mtu));
    const firstPsn = psn[qp]!;
    psn[qp] = psnAdd(firstPsn, n);
    perQp[qp]!.push({ qp, wrId: rng.bigint(64), firstPsn, lastPsn: psnAdd(firstPsn, n - 1), length, startOff: 0, pd: rng.int(0, 0xffff), pmtu, numSge: sge.length, sge });
  }
  // Merge: one READ at a time per QP, QPs interleaved at random.
  const ctxs: ReadCtx[] = [];
  const events: Ev[] = [];
  const cur: { evs: Ev[]; ctx: number }[] = perQp.map(() => ({ evs: [], ctx: -1 }));
  const next = perQp.map(() => 0);
  for (;;) {
    const live = cur.map((c, q) => (c.evs.length > 0 || next[q]! < perQp[q]!.length ? q : -1)).filter(q => q >= 0);
    if (live.length === 0) break;
    const q = rng.pick(live);
    const c = cur[q]!;
    if (c.evs.length === 0) {
      const r = perQp[q]![next[q]!++]!;
      c.ctx = ctxs.push(r) - 1;
      c.evs = readEvents(r, rng, o);
    }
    events.push({ ...c.evs.shift()!, ctx: c.ctx });
  }
  return { ctxs, events };
}

/** The receiver's behaviour on the events, in order. QPs in `dead` (ERROR/RESET) throw
 *  their contexts away and see nothing. */
export function model(ctxs: ReadCtx[], events: Ev[], qps: number, dead: ReadonlySet<number> = new Set()): Want {
  const want: Want = { writes: [], dones: [], lastWriteOf: [], acks: [] };
  const heads: number[][] = Array.from({ length: qps }, () => []);
  let pushed = 0;
  const st = Array.from({ length: qps }, () => ({ started: false, next: 0, off: 0, sge: 0, sgeOff: 0, failed: false }));
  const finish = (q: number, status: number, syndrome: number) => {
    const i = heads[q]!.shift()!, r = ctxs[i]!, s = st[q]!;
    const fs = s.failed ? CQE_STATUS.LOCAL_PROTECTION_ERROR : status;
    want.dones.push({ qp: q, wrId: r.wrId, lastPsn: r.lastPsn, status: fs, syndrome: s.failed ? 0 : syndrome, ok: fs === CQE_STATUS.SUCCESS ? 1 : 0 });
    want.lastWriteOf.push(want.writes.length - 1);
    s.started = false;
    s.failed = false;
  };
  const ack = (q: number, psn: number, syndrome: number, rdMiss: boolean, rdExp: number): void => {
    want.acks.push({ qp: q, psn, syndrome, rdMiss: rdMiss ? 1 : 0, rdExp: rdMiss ? rdExp : 0 });
  };
  for (const e of events) {
    while (pushed <= e.ctx) { heads[ctxs[pushed]!.qp]!.push(pushed); pushed++; }
    const q = e.kind === 'hdr' ? e.hdr.destQpn - LOCAL_QPN_BASE : e.qp;
    if (e.kind === 'rewind') { heads[q]!.length = 0; st[q]!.started = false; continue; }
    const hi = heads[q]![0];
    const live = hi !== undefined && !dead.has(q);
    const r = live ? ctxs[hi]! : undefined, s = st[q]!;
    const exp = r ? (s.started ? s.next : r.firstPsn) : 0;
    if (e.kind === 'ack') {
      // Every ACK/NAK is passed on; rdMiss when it acknowledges the missing expected response.
      const ackSyn = (e.syndrome >> 5) === 0, seqOrRnr = e.syndrome === 0x60 || (e.syndrome >> 5) === 1;
      const miss = !!r && (ackSyn ? psnDiff(e.psn, exp) >= 0 : seqOrRnr && psnDiff(e.psn, exp) > 0);
      ack(q, e.psn, e.syndrome, miss, exp);
      if (r && nakCqeStatusOf(e.syndrome) !== CQE_STATUS.SUCCESS && psnDiff(e.psn, exp) >= 0 && psnDiff(r.lastPsn, e.psn) >= 0) finish(q, nakCqeStatusOf(e.syndrome), e.syndrome);
      continue;
    }
    if (!r) continue;
    const h = e.hdr, op = h.opcode, plen = h.payloadLen, mtu = 1 << r.pmtu;
    if (psnDiff(h.psn, exp) > 0) { ack(q, h.psn, 0x60, true, exp); continue; } // an implied NAK
    if (h.psn !== exp) continue;
    const mid = op === READ_RESP.MIDDLE || op === READ_RESP.LAST;
    const seqOk = s.started ? mid : op === READ_RESP.FIRST || op === READ_RESP.ONLY || (r.startOff > 0 && mid);
    const off = s.started ? s.off : r.startOff, end = off + plen;
    const lenOk = op === READ_RESP.FIRST || op === READ_RESP.MIDDLE ? plen === mtu && end < r.length
      : plen <= mtu && end === r.length && h.psn === r.lastPsn && (op === READ_RESP.ONLY || plen > 0);
    if (!seqOk) { finish(q, CQE_STATUS.REMOTE_INVALID_REQUEST, 0); continue; }
    if (!lenOk) { finish(q, CQE_STATUS.LOCAL_LENGTH_ERROR, 0); continue; }
    ack(q, h.psn, 0x1f, false, 0);
    if (plen === 0) { finish(q, CQE_STATUS.SUCCESS, 0); continue; }
    if (!s.started) { s.sge = 0; s.sgeOff = r.startOff; }
    s.started = true; s.next = psnAdd(h.psn, 1); s.off = end;
    let at = 0;
    const optional = s.failed; // an earlier packet of this READ already failed
    while (at < plen) {
      const g = r.sge[s.sge]!;
      // An SGE the cut is past (empty, or wholly before a resumed READ's startOff).
      if (s.sgeOff >= g.len) { s.sgeOff -= g.len; s.sge++; continue; }
      const n = Math.min(plen - at, g.len - s.sgeOff);
      const va = g.addr + BigInt(s.sgeOff);
      want.writes.push({ va, len: n, key: g.lkey, pd: r.pd, access: 1, bytes: e.payload.subarray(at, at + n), read: hi, optional });
      if (va & POISON_BIT) s.failed = true;
      at += n; s.sgeOff += n;
      if (s.sgeOff === g.len) { s.sge++; s.sgeOff = 0; }
    }
    if (op === READ_RESP.LAST || op === READ_RESP.ONLY) finish(q, CQE_STATUS.SUCCESS, 0);
  }
  return want;
}
