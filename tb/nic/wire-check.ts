// Checks a capture of the link against the model with two independent decoders: tshark (every
// frame RoCE, IP checksum good, nothing malformed, no expert errors; opcode/PSN/RETH/AETH/payload
// length of each request and READ response equal to the model's, in order per direction and QP)
// and scapy (every ICRC verifies, whatever the opcode).
//
// Retransmissions are accepted (tb/model/retransmission.ts): a request or READ RESPONSE at a PSN
// its stream already sent must equal that first transmission (every header field but the IPv4
// id, and the payload), a partial READ re-request must ask for exactly the part after its PSN,
// and only first transmissions are matched, in order, against the model's expected packets.

import { scapyCheckIcrc, tsharkDecode, EXPERT_SEVERITY, type TsharkRow } from '../model/external-check.ts';
import { Syndrome } from '../model/opcodes.ts';
import { decodeRoce, type RocePacket } from '../model/packet.ts';
import { readPcap } from '../model/pcap.ts';
import { StreamHistory, type StreamOptions, type Transmission } from '../model/retransmission.ts';
import { AETH_ACK, RC_OP, isReadResponse, responseKey, type ExpectedPacket } from '../model/wire-expect.ts';
import { wireKey } from './write-scenario.ts';

export interface WireCheckResult {
  frames: number;
  /** First transmissions of requests / READ responses. */
  requests: number;
  responses: number;
  acks: number;
  /** Requests and READ responses sent again (equal to their first transmission). */
  retransmissions: number;
  /** Of them requests (WRITE packets, READ REQUESTs): with `reRequests`, what the senders'
   *  RETX_PKTS counters must add up to. */
  requestRetransmissions: number;
  /** Partial READ re-requests (VA, length and PSN advanced). */
  reRequests: number;
  /** NAK 0x60 (sequence error) frames, allowed only with `lossy`. */
  sequenceNaks: number;
}

export interface WireCheckOptions extends StreamOptions {
  /** The link lost or damaged frames: NAK 0x60 (PSN sequence error) is allowed (default false:
   *  every ACKNOWLEDGE must be a positive ACK). */
  readonly lossy?: boolean;
}

const hex = (v: number | null | undefined): string => (v === null || v === undefined ? String(v) : `0x${v.toString(16)}`);
const json = (v: unknown): string => JSON.stringify(v, (_k, x: unknown) => typeof x === 'bigint' ? `0x${x.toString(16)}` : x);

/** The frame is well-formed RoCEv2 to port 4791 with a good IP checksum and no expert warning. */
function checkFrame(r: TsharkRow): void {
  const at = `frame ${r.frame}`;
  if (!r.protocols.includes('infiniband')) throw new Error(`${at}: not decoded as RoCE (${r.protocols.join(':')})`);
  if (r.malformed) throw new Error(`${at}: malformed`);
  if (r.ipChecksumStatus !== 'good') throw new Error(`${at}: IP checksum ${r.ipChecksumStatus}`);
  const bad = r.expert.find(e => e.severity >= EXPERT_SEVERITY.warn);
  if (bad) throw new Error(`${at}: expert ${bad.message}`);
  if (r.udpDstPort !== 4791) throw new Error(`${at}: UDP port ${r.udpDstPort}`);
}

/** Frame `r` against expected packet `e`; `what` names both in the message. */
function checkPacket(r: TsharkRow, e: ExpectedPacket, what: string): void {
  if (r.opcode !== e.opcode) throw new Error(`${what}: opcode ${hex(r.opcode)}, expected ${hex(e.opcode)}`);
  if (r.psn !== e.psn) throw new Error(`${what}: PSN ${hex(r.psn)}, expected ${hex(e.psn)}`);
  if (e.ackReq && !r.ackReq) throw new Error(`${what}: AckReq missing on the last packet`);
  if (e.reth) {
    if (!r.reth || r.reth.va !== e.reth.va || r.reth.rkey !== e.reth.rkey || r.reth.dmaLen !== e.reth.dmaLen) {
      throw new Error(`${what}: RETH ${json(r.reth)}, expected va 0x${e.reth.va.toString(16)} rkey 0x${e.reth.rkey.toString(16)} len ${e.reth.dmaLen}`);
    }
  } else if (r.reth) throw new Error(`${what}: unexpected RETH`);
  if (e.aeth) {
    if (!r.aeth || r.aeth.syndrome !== e.aeth.syndrome || r.aeth.msn !== e.aeth.msn) {
      throw new Error(`${what}: AETH ${json(r.aeth)}, expected syndrome ${hex(e.aeth.syndrome)} msn ${e.aeth.msn}`);
    }
  } else if (r.aeth) throw new Error(`${what}: unexpected AETH ${json(r.aeth)}`);
  const pad = (4 - (e.payloadLen % 4)) % 4;
  if (r.dataLength !== e.payloadLen + pad) throw new Error(`${what}: ${r.dataLength} payload+pad bytes, expected ${e.payloadLen}+${pad}`);
}

/** `wire`: expected packets per wireKey (requests) and responseKey(wireKey) (READ responses).
 *  ACKs are not listed: each must be a positive ACK (or, with `lossy`, a NAK 0x60). */
export function checkCapture(pcapPath: string, wire: ReadonlyMap<string, readonly ExpectedPacket[]>, macA: string, o: WireCheckOptions = {}): WireCheckResult {
  const rows = tsharkDecode(pcapPath);
  const raw = readPcap(pcapPath).records;
  if (raw.length !== rows.length) throw new Error(`tshark read ${rows.length} frames, the pcap reader ${raw.length}`);
  const seen = new Map<string, number>();
  const history = new Map<string, StreamHistory>();
  const out: WireCheckResult = { frames: rows.length, requests: 0, responses: 0, acks: 0, retransmissions: 0, requestRetransmissions: 0, reRequests: 0, sequenceNaks: 0 };
  for (const r of rows) {
    checkFrame(r);
    const at = `frame ${r.frame}`;
    if (r.opcode === RC_OP.ACK) {
      out.acks++;
      if (o.lossy && r.aeth?.syndrome === Syndrome.NAK_PSN_SEQUENCE) { out.sequenceNaks++; continue; }
      if (r.aeth?.syndrome !== AETH_ACK) throw new Error(`${at}: ACK syndrome ${hex(r.aeth?.syndrome)} in an error-free run${o.lossy ? ' (a lossy one allows NAK 0x60 only)' : ''}`);
      continue;
    }
    const from = r.ethSrc === macA ? 'A' : 'B';
    const reqKey = wireKey(from, r.destQp!);
    const key = isReadResponse(r.opcode ?? -1) ? responseKey(reqKey) : reqKey;
    let h = history.get(key);
    if (!h) history.set(key, h = new StreamHistory(o));
    const pkt = decoded(raw[r.frame - 1]!.data, at);
    let t: Transmission;
    try { t = h.classify(pkt); } catch (e) { throw new Error(`${at} (${key}): ${(e as Error).message}`); }
    if (t.kind === 'retransmission') { out.retransmissions++; if (key === reqKey) out.requestRetransmissions++; continue; }
    if (t.kind === 're-request') { out.reRequests++; continue; }
    const i = seen.get(key) ?? 0;
    const e = wire.get(key)?.[i];
    if (!e) throw new Error(`${at}: ${key} #${i} (opcode ${hex(r.opcode)} psn ${hex(r.psn)}) not expected`);
    checkPacket(r, e, `${at} (${key} #${i})`);
    h.recordFirst(r.frame, pkt, e.pmtu);
    seen.set(key, i + 1);
    if (key === reqKey) out.requests++; else out.responses++;
  }
  for (const [key, list] of wire) {
    if ((seen.get(key) ?? 0) !== list.length) throw new Error(`${key}: ${seen.get(key) ?? 0} of ${list.length} expected packets on the wire`);
  }
  const verdicts = scapyCheckIcrc(pcapPath);
  if (verdicts.length !== rows.length) throw new Error(`scapy read ${verdicts.length} frames, tshark ${rows.length}`);
  for (const v of verdicts) {
    if (v.status !== 'ok') throw new Error(`frame ${v.frame}: ICRC ${v.status} (carried ${v.carried}, scapy ${v.computed})`);
  }
  return out;
}

/** The frame as our decoder reads it (tshark took it as valid RoCE already; every ICRC is
 *  scapy's to judge, below). */
function decoded(frame: Uint8Array, at: string): RocePacket {
  const d = decodeRoce(frame, { checkIcrc: false });
  if (!d.ok) throw new Error(`${at}: ${d.reason} (${d.detail})`);
  return d.pkt;
}
