// What became of one replayed frame: accepted, or rejected and why. Two views are combined:
// the NIC's (which counter moved, what it answered, the QP state and expected PSN before the
// frame) and the TS packet model's (decodeRoce's validation of the bytes). The NIC decides
// the verdict; when the model disagrees, the row says so in a note, because a disagreement
// is what a replay against a foreign capture is looking for.

import { LOCAL_QPN_BASE } from '../../gen/nic/flow-types.ts';
import { QP_STATE } from '../../gen/nic/regmap.ts';
import { opcodeInfo, Opcode, Syndrome } from '../model/opcodes.ts';
import { decodeRoce, type DecodeResult, type RocePacket } from '../model/packet.ts';
import { psnCompare } from '../model/psn.ts';
import type { FeedResult, QpSnapshot } from './feeder.ts';

export type RejectReason =
  | 'bad-icrc'           // RX_DROP_ICRC moved
  | 'malformed'          // dropped before the responder (RX parser / ICRC check, other reason)
  | 'unknown-qp'         // dest QPN names no QP of the scenario
  | 'qp-not-ready'       // the QP is not in RTR/RTS (INIT, or ERROR after a fatal NAK)
  | 'psn-sequence'       // PSN ahead of the expected one: NAK 0x60
  | 'psn-gap'            // PSN ahead again after the NAK 0x60: dropped silently
  | 'duplicate'          // PSN behind: re-ACKed, not executed
  | 'invalid-request'    // NAK 0x61
  | 'remote-access'      // NAK 0x62
  | 'remote-operational' // NAK 0x63
  | 'rnr'                // RNR NAK
  | 'dropped'            // RX_DROP_OTHER at the responder, no better reason known
  | 'no-effect';         // no counter moved: the frame vanished

export const REASON_TEXT: Readonly<Record<RejectReason, string>> = {
  'bad-icrc': 'bad ICRC', 'malformed': 'malformed', 'unknown-qp': 'unknown QP', 'qp-not-ready': 'QP not ready',
  'psn-sequence': 'PSN error (NAK 0x60)', 'psn-gap': 'PSN error (gap, dropped)', 'duplicate': 'PSN error (duplicate)',
  'invalid-request': 'invalid request (NAK 0x61)', 'remote-access': 'remote access error (NAK 0x62)',
  'remote-operational': 'remote operational error (NAK 0x63)', 'rnr': 'RNR NAK', 'dropped': 'dropped', 'no-effect': 'no effect seen',
};

export interface Verdict {
  readonly accepted: boolean;
  readonly reason?: RejectReason;
  /** One line: what exactly was wrong (expected PSN, decoder detail, ...). */
  readonly detail: string;
  /** The TS model disagrees with the NIC, or adds something. */
  readonly note?: string;
}

/** What the verdict needs to know about the frame's QP (undefined: not in the scenario). */
export interface QpView {
  readonly index: number;
  readonly before: QpSnapshot;
}

const STATE_NAMES = Object.fromEntries(Object.entries(QP_STATE).map(([k, v]) => [v, k])) as Record<number, string>;
const hex6 = (n: number): string => `0x${n.toString(16).padStart(6, '0')}`;

/** The local QP index a dest QPN names, if the NIC has such a QP. */
export function qpIndexOf(destQpn: number, numQp: number): number | undefined {
  const i = destQpn - LOCAL_QPN_BASE;
  return i >= 0 && i < numQp ? i : undefined;
}

function nakReason(syndrome: number): RejectReason | undefined {
  if (syndrome === Syndrome.NAK_PSN_SEQUENCE) return 'psn-sequence';
  if (syndrome === Syndrome.NAK_INVALID_REQUEST) return 'invalid-request';
  if (syndrome === Syndrome.NAK_REMOTE_ACCESS) return 'remote-access';
  if (syndrome === Syndrome.NAK_REMOTE_OPERATIONAL) return 'remote-operational';
  if ((syndrome & 0xe0) === Syndrome.RNR_NAK) return 'rnr';
  return undefined;
}

/** The first NAK among the replies, decoded. */
function firstNak(replies: readonly RocePacket[]): { reason: RejectReason; pkt: RocePacket } | undefined {
  for (const p of replies) {
    if (p.bth.opcode !== Opcode.ACKNOWLEDGE || !p.aeth) continue;
    const reason = nakReason(p.aeth.syndrome);
    if (reason) return { reason, pkt: p };
  }
  return undefined;
}

function reject(reason: RejectReason, detail: string, note?: string): Verdict {
  return { accepted: false, reason, detail, ...(note ? { note } : {}) };
}

/** Drops before the responder: the model's decoder should name the same fault. */
function earlyDrop(r: FeedResult, ts: DecodeResult): Verdict {
  if (r.delta.dropIcrc > 0) {
    return ts.ok || ts.reason !== 'bad-icrc'
      ? reject('bad-icrc', 'RX_DROP_ICRC counted', `TS model: ${ts.ok ? 'ICRC is good' : `${ts.reason} (${ts.detail})`}`)
      : reject('bad-icrc', ts.detail);
  }
  return ts.ok
    ? reject('malformed', 'dropped before the responder (RX_DROP_OTHER)', 'TS model: the frame decodes as valid RoCEv2')
    : reject('malformed', `${ts.reason}: ${ts.detail}`);
}

/** PSN position against the expected PSN before the frame (requests only). */
function psnVerdict(pkt: RocePacket, qp: QpView): Verdict | undefined {
  const exp = qp.before.expPsn;
  const c = psnCompare(pkt.bth.psn, exp);
  if (c < 0) return reject('duplicate', `PSN ${hex6(pkt.bth.psn)} is behind the expected ${hex6(exp)}: re-ACKed, not executed`);
  if (c > 0) return reject('psn-gap', `PSN ${hex6(pkt.bth.psn)} is ahead of the expected ${hex6(exp)}: dropped (the NAK 0x60 went out earlier)`);
  return undefined;
}

/** The frame's headers, even when the model rejects its ICRC or IP checksum (the NIC may not). */
export function packetOf(frame: Uint8Array, ts: DecodeResult = decodeRoce(frame)): RocePacket | undefined {
  if (ts.ok) return ts.pkt;
  const loose = decodeRoce(frame, { checkIcrc: false, checkIpChecksum: false });
  return loose.ok ? loose.pkt : undefined;
}

export function judge(frame: Uint8Array, r: FeedResult, replies: readonly RocePacket[], qp: QpView | undefined): Verdict {
  const ts = decodeRoce(frame);
  if (!r.accounted) return reject('no-effect', 'no counter moved before the time budget ran out');
  if (r.delta.dropIcrc > 0 || (r.delta.dropOther > 0 && r.delta.rxFrames === 0)) return earlyDrop(r, ts);
  const pkt = packetOf(frame, ts);
  const note = ts.ok ? undefined : `TS model rejects it: ${ts.reason} (${ts.detail}), the NIC took it`;
  if (!pkt) return { accepted: true, detail: 'taken by the NIC', ...(note ? { note } : {}) };
  if (!qp) return reject('unknown-qp', `dest QP ${hex6(pkt.bth.destQp)} is not a QP of the scenario`, note);
  const state = qp.before.state;
  if (state !== QP_STATE.RTR && state !== QP_STATE.RTS) return reject('qp-not-ready', `QP ${qp.index} is in ${STATE_NAMES[state] ?? state}, not RTR/RTS`, note);
  const nak = firstNak(replies);
  if (nak) {
    const expected = nak.reason === 'psn-sequence' ? `, expected PSN ${hex6(nak.pkt.bth.psn)}` : '';
    return reject(nak.reason, `NAK 0x${nak.pkt.aeth!.syndrome.toString(16)} for PSN ${hex6(pkt.bth.psn)}${expected}`, note);
  }
  const kind = opcodeInfo(pkt.bth.opcode)?.kind;
  const isRequest = kind === 'write' || kind === 'send' || kind === 'read-request';
  const psn = isRequest ? psnVerdict(pkt, qp) : undefined;
  if (psn) return note ? { ...psn, note } : psn;
  if (r.delta.dropOther > 0) return reject('dropped', 'counted in RX_DROP_OTHER by the responder', note);
  return { accepted: true, detail: kind === 'ack' ? 'ACK/NAK handed to the requester' : 'executed', ...(note ? { note } : {}) };
}
