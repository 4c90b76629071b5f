// Checks a capture of the link against the model with two independent decoders: tshark (every
// frame RoCE, IP checksum good, nothing malformed, no expert errors; opcode/QP/PSN/RETH of each
// request equal to the model's, in order per direction and QP) and scapy (every ICRC verifies).

import { scapyCheckIcrc, tsharkDecode, EXPERT_SEVERITY } from '../model/external-check.ts';
import { RC_OP, type ExpectedPacket } from '../model/wire-expect.ts';
import { wireKey } from './write-scenario.ts';

export interface WireCheckResult { frames: number; requests: number; acks: number }

export function checkCapture(pcapPath: string, wire: ReadonlyMap<string, readonly ExpectedPacket[]>, macA: string): WireCheckResult {
  const rows = tsharkDecode(pcapPath);
  const seen = new Map<string, number>();
  let requests = 0, acks = 0;
  for (const r of rows) {
    const at = `frame ${r.frame}`;
    if (!r.protocols.includes('infiniband')) throw new Error(`${at}: not decoded as RoCE (${r.protocols.join(':')})`);
    if (r.malformed) throw new Error(`${at}: malformed`);
    if (r.ipChecksumStatus !== 'good') throw new Error(`${at}: IP checksum ${r.ipChecksumStatus}`);
    const bad = r.expert.find(e => e.severity >= EXPERT_SEVERITY.warn);
    if (bad) throw new Error(`${at}: expert ${bad.message}`);
    if (r.udpDstPort !== 4791) throw new Error(`${at}: UDP port ${r.udpDstPort}`);
    if (r.opcode === RC_OP.ACK) {
      acks++;
      if (r.aeth?.syndrome !== 0x1f) throw new Error(`${at}: ACK syndrome 0x${r.aeth?.syndrome.toString(16)} in an error-free run`);
      continue;
    }
    const from = r.ethSrc === macA ? 'A' : 'B';
    const key = wireKey(from, r.destQp!);
    const list = wire.get(key);
    const i = seen.get(key) ?? 0;
    const e = list?.[i];
    if (!e) throw new Error(`${at}: request ${key} #${i} (opcode 0x${r.opcode?.toString(16)} psn 0x${r.psn?.toString(16)}) not expected`);
    const what = `${at} (${key} #${i})`;
    if (r.opcode !== e.opcode) throw new Error(`${what}: opcode 0x${r.opcode?.toString(16)}, expected 0x${e.opcode.toString(16)}`);
    if (r.psn !== e.psn) throw new Error(`${what}: PSN 0x${r.psn?.toString(16)}, expected 0x${e.psn.toString(16)}`);
    if (e.ackReq && !r.ackReq) throw new Error(`${what}: AckReq missing on the last packet`);
    if (e.reth) {
      if (!r.reth || r.reth.va !== e.reth.va || r.reth.rkey !== e.reth.rkey || r.reth.dmaLen !== e.reth.dmaLen) {
        throw new Error(`${what}: RETH ${JSON.stringify(r.reth, (_k, v: unknown) => typeof v === 'bigint' ? `0x${v.toString(16)}` : v)}, expected va 0x${e.reth.va.toString(16)} rkey 0x${e.reth.rkey.toString(16)} len ${e.reth.dmaLen}`);
      }
    } else if (r.reth) throw new Error(`${what}: unexpected RETH`);
    const pad = (4 - (e.payloadLen % 4)) % 4;
    if (r.dataLength !== e.payloadLen + pad) throw new Error(`${what}: ${r.dataLength} payload+pad bytes, expected ${e.payloadLen}+${pad}`);
    seen.set(key, i + 1);
    requests++;
  }
  for (const [key, list] of wire) {
    if ((seen.get(key) ?? 0) !== list.length) throw new Error(`${key}: ${seen.get(key) ?? 0} of ${list.length} expected request packets on the wire`);
  }
  const verdicts = scapyCheckIcrc(pcapPath);
  if (verdicts.length !== rows.length) throw new Error(`scapy read ${verdicts.length} frames, tshark ${rows.length}`);
  for (const v of verdicts) {
    if (v.status !== 'ok') throw new Error(`frame ${v.frame}: ICRC ${v.status} (carried ${v.carried}, scapy ${v.computed})`);
  }
  return { frames: rows.length, requests, acks };
}
