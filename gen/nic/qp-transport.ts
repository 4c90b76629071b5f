// The requester's per-QP transport state, in ONE record (docs/nic-reliability.md): the
// outstanding-entry list (slots of the tracker's shared pool), the PSN window, error and READ-completion state, the retry
// engine (retry and RNR counters, the pending retry), the ACK/RNR timer and the send pointer
// (where nic_req_tx goes on in the send ring, and the PSN a rewound message resumes at).
//
// nic_ack_tracker holds the table (one record per QP) and is its only writer. The record's wide
// fields that only one or two event sources write are not in it but in LUTRAMs beside it (issue
// 15; gen/lib/banked-memory.ts: a memory per writer, a newest-bank and a reads-as-0 bit per QP):
// a held read_done error's PSN/status/syndrome and a NAK's status/syndrome (their valid bits
// stay here and gate every read), the send pointer's ring index and resume PSN, sentHigh
// (written by posts and rewinds) and rdAcked (read_done and a READ's post). What stays here is
// what some logic sees for every QP each cycle (acked and lastSent: every QP's "PSNs in flight"
// arms its timer), or what many event sources rewrite. The table is read and
// written through the narrow interface below: `at(q)` reads one record (a mux over the table
// today, one block-RAM read port tomorrow), `write(i, rec)` replaces QP i's record at the clock
// edge. Every event of a cycle (an entry posted, an ACK/NAK, a read_done, a retirement, a
// timer expiry, a rewind, a park) is folded into one next record per QP, so moving the table
// into block RAM (issue 15) means serialising those events into one read-modify-write per
// cycle, not finding state scattered over the stages. nic_req_tx reads its part (the send
// pointer) through the tracker's `tp_*` read port; it writes nothing here directly: what it
// does reaches the record as events (a posted entry, a park).

import { Bool, Struct, UInt, Vec, lit, mux, pack, type ModuleBuilder, type StructShape, type UIntShape, type Value } from '../hdl/index.ts';

/** Why nic_req_tx put a QP's next WQE back (the fetch stage re-reads it once the reason is gone). */
export const PARK = { NONE: 0, FENCE: 1, READ_LIMIT: 2, TRACKER_FULL: 3 } as const;

/** Widths that depend on the tracker's depth (per QP) and its pool of entry slots. */
export function qpTransportStruct(depthLog2: number, slotWidth: number) {
  const ptr = UInt(depthLog2 + 1);
  const slot = UInt(slotWidth);
  return Struct('qp_transport', {
    // -- outstanding entries: a list of slots of the tracker's shared entry pool, in posting
    //    order, linked by its next-slot memory; then the QP's spare slots (dropped entries the
    //    QP reuses first, or the pool takes back while the QP has none: nic_ack_tracker) --
    /** Oldest entry's slot (valid while count != 0). */
    head: slot,
    /** Newest entry's slot (valid while count != 0). */
    tail: slot,
    /** Outstanding entries (at most the tracker's depth). */
    count: ptr,
    /** First spare slot (valid while spare != 0); next[tail] is it while count != 0. */
    spareHead: slot,
    /** Spare slots (count + spare <= depth). */
    spare: ptr,
    // -- PSN window: PSNs acked+1 .. lastSent are in flight --
    sentValid: Bool,
    lastSent: UInt(24),
    acked: UInt(24),
    /** sentHigh (nic_ack_tracker's `sent_high` memories: the newest PSN ever sent, lowered
     *  only by a rewind after nic_req_tx cut messages short) is valid: packets at or below it
     *  are resends. */
    highValid: Bool,
    // -- errors --
    /** A NAK (or exhausted retry) is recorded for the oldest uncovered entry; its status and
     *  syndrome are in nic_ack_tracker's `nak_err_mem` (a LUTRAM word per QP). */
    nakValid: Bool,
    flush: Bool,
    // -- READ completions --
    rdCount: ptr,
    // (rdAcked, the newest READ PSN known complete, is in nic_ack_tracker's `rd_acked`
    //  memories: written by read_done and by a READ's post.)
    /** A read_done error is held; its PSN, status and syndrome are in nic_ack_tracker's
     *  `rd_err_done_mem` (a LUTRAM word per QP). */
    rdErrValid: Bool,
    /** rdAcked came from a read_done ahead of lastSent: the READ's response arrived before its
     *  ReqEntry (nic_req_tx opens the READ context before it posts the entry). The next post,
     *  when it is that READ, keeps rdAcked instead of starting it afresh. */
    rdEarly: Bool,
    // -- retry engine --
    retryLeft: UInt(3),
    rnrLeft: UInt(3),
    /** A NAK-started retry is under way (rxe's started_retry): further NAKs do not count. */
    retryStarted: Bool,
    /** A retry was decided: the completion engine rewinds at the oldest uncovered entry. */
    retryPend: Bool,
    // -- timer: one deadline per QP, checked by the scanner --
    tmArmed: Bool,
    /** The armed deadline is an RNR wait (its expiry rewinds without using a retry). */
    tmRnr: Bool,
    tmDeadline: UInt(32),
    // -- send pointer (nic_req_tx): its ring index expIdx (the next WQE nic_req_tx takes for
    //    this QP; others are stale copies) and resume PSN are in nic_ack_tracker's `exp_idx`
    //    and `resume_psn` memories --
    /** The WQE at expIdx resumes at resumePsn (a go-back-N restart inside it). */
    resumeValid: Bool,
    /** PARK: why the WQE at expIdx was put back; the fetch stage holds the QP until it clears. */
    park: UInt(2),
  });
}
export type QpTransportShape = ReturnType<typeof qpTransportStruct>;

/** The send-pointer view nic_req_tx reads for the QP of the WQE it holds (tp_* port). */
export const TxPointer = Struct('tx_pointer', {
  expIdx: UInt(16),
  resumeValid: Bool,
  resumePsn: UInt(24),
  highValid: Bool,
  sentHigh: UInt(24),
  /** The tracker takes an entry for this QP now: fewer than depth outstanding and a slot (a spare of the QP or one of the pool); else the WQE is parked. */
  room: Bool,
});

/** A go-back-N restart of one QP, handed to nic_req_tx (SQ_PSN := sqPsn), nic_read_resp_rx
 *  (drop the QP's READ contexts) and nic_wqe_fetch (re-read the ring from ringIdx). */
export function rewindStruct(qw: number) {
  return Struct('qp_rewind', { qp: UInt(qw), ringIdx: UInt(16), sqPsn: UInt(24) });
}
/** With a rewind's handshake, from nic_req_tx (valid: it cut the QP's messages short with a
 *  DMA abort): the QP's newest PSN really passed on (`highValid` 0: none ever), which replaces
 *  the record's sentHigh (raised at each post to the entry's last PSN, some of which were then
 *  never sent). */
export const RewindHigh = Struct('rewind_high', { valid: Bool, highValid: Bool, sentHigh: UInt(24) });
/** nic_req_tx put the WQE at ringIdx back (fetch re-reads it when `reason` is gone). */
export function parkStruct(qw: number) {
  return Struct('qp_park', { valid: Bool, qp: UInt(qw), ringIdx: UInt(16), reason: UInt(2) });
}
/** "Read the QP's ring again from ringIdx" for nic_wqe_fetch. */
export function fetchRewindStruct(qw: number) {
  return Struct('fetch_rewind', { valid: Bool, qp: UInt(qw), ringIdx: UInt(16) });
}

type Fields<S> = S extends StructShape<infer F> ? F : never;
export type QpTransportField = keyof Fields<QpTransportShape> & string;

/** The record table: one register per QP today; `at` and `write` are the whole interface. */
export interface QpTransportTable {
  readonly shape: QpTransportShape;
  /** The record of QP q (q may be a runtime index). */
  at(q: Value | number): Value;
  /** Replace QP i's record at the next edge. */
  write(i: number, rec: Value): void;
}

export function qpTransportTable(m: ModuleBuilder, numQp: number, depthLog2: number, slotWidth: number): QpTransportTable {
  const shape = qpTransportStruct(depthLog2, slotWidth);
  const reg = m.reg('qp_tp_reg', Vec(shape, numQp));
  return {
    shape,
    at: q => reg.at(q),
    write: (i, rec) => reg.setBits((i + 1) * shape.width - 1, i * shape.width, rec),
  };
}

/** `rec` with some fields replaced (the others kept). */
export function withFields(shape: QpTransportShape, rec: Value, changes: Partial<Record<QpTransportField, Value | number>>): Value {
  const all: Record<string, Value | number> = {};
  for (const f of shape.fields) all[f.name] = f.name in changes ? changes[f.name as QpTransportField]! : (rec as Value<QpTransportShape>).field(f.name as QpTransportField);
  return pack(shape, all as never);
}

/** The first value whose condition holds, else `dflt` (a priority mux, first case wins). */
export function firstOf(cases: readonly (readonly [Value, Value | number])[], dflt: Value): Value {
  let v: Value = dflt;
  for (let i = cases.length - 1; i >= 0; i--) {
    const [c, x] = cases[i]!;
    v = mux(c, typeof x === 'number' ? lit(x, dflt.width) : x, v);
  }
  return v;
}

/** RNR NAK timer codes (IBTA table 45, 5-bit code of syndrome 0x20|t) in microseconds x 100. */
const RNR_TIMER_10US = [65536, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152];
/** Cycles of RNR timer code t at `clockHz` (the NIC's clock; 250 MHz by default). */
export function rnrTimerCycles(t: number, clockHz = 250e6): number {
  return Math.round(RNR_TIMER_10US[t & 31]! * 10e-6 * clockHz);
}
/** The RNR wait in cycles for a 5-bit timer code, as a 32-bit value (a 32-entry table). */
export function rnrTimerValue(code: Value, clockHz = 250e6): Value<UIntShape> {
  let v: Value = lit(rnrTimerCycles(0, clockHz), 32);
  for (let t = 1; t < 32; t++) v = mux(code.eq(t), lit(rnrTimerCycles(t, clockHz), 32), v);
  return v.asUnsigned();
}
