// Shared by the tb/model tests: seeded random generators that print their seed on failure,
// random RoCE packets of any opcode, and the shared ICRC vector file.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Rng } from '../../core/rng.ts';
import { requireOpcode } from '../../model/opcodes.ts';
import type { RocePacket } from '../../model/packet.ts';
import type { RocePath } from '../../model/segment.ts';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const vectorFile = path.resolve(repoRoot, '../shared/vectors/icrc_vectors.txt');

export { testRng } from '../seed.ts';

/** A unicast, locally administered MAC: a group bit in a source MAC is an error Wireshark flags. */
function randomMac(rng: Rng): number {
  const first = (rng.int(0, 255) & 0xfc) | 0x02;
  return first * 2 ** 40 + rng.int(0, 2 ** 40 - 1);
}

export function randomPath(rng: Rng): RocePath {
  return {
    eth: { dst: randomMac(rng), src: randomMac(rng) },
    ip: { dscp: rng.int(0, 63), ecn: rng.int(0, 3), id: rng.int(0, 0xffff), df: rng.bool(0.9), ttl: rng.int(1, 255), src: rng.u32(), dst: rng.u32() },
    udp: { srcPort: rng.int(0xc000, 0xffff) },
    // QP 0 and 1 are InfiniBand's management QPs (SMI, GSI): Wireshark decodes their payload as
    // MADs, and random bytes then look malformed. No RC connection uses them.
    destQp: rng.int(2, 0xffffff),
    pkey: rng.bool() ? 0xffff : rng.int(0, 0xffff),
  };
}

/** A packet of `opcode` with every field random, in range and consistent with the opcode. */
export function randomPacket(rng: Rng, opcode: number, maxPayload = 1024): RocePacket {
  const info = requireOpcode(opcode);
  const p = randomPath(rng);
  const payload = info.payload ? rng.bytes(rng.bool(0.1) ? 0 : rng.int(1, maxPayload)) : new Uint8Array(0);
  return {
    eth: p.eth, ip: p.ip, udp: p.udp,
    bth: {
      opcode, se: rng.bool(), migReq: rng.bool(), tver: 0, pkey: p.pkey ?? 0xffff,
      fecn: rng.bool(), becn: rng.bool(), destQp: p.destQp, ackReq: rng.bool(), psn: rng.int(0, 0xffffff),
    },
    ...(info.reth ? { reth: { va: rng.bigint(64), rkey: rng.u32(), dmaLen: rng.u32() } } : {}),
    ...(info.imm ? { immDt: rng.u32() } : {}),
    ...(info.aeth ? { aeth: { syndrome: rng.int(0, 255), msn: rng.int(0, 0xffffff) } } : {}),
    payload,
  };
}

export interface Vector { readonly label: string; readonly good: boolean; readonly frame: Uint8Array }

/** Lines `good#N len=L <hex>` / `bad#N len=L <hex>`; `#` starts a comment. */
export function readVectors(): Vector[] {
  const out: Vector[] = [];
  for (const line of fs.readFileSync(vectorFile, 'utf8').split('\n')) {
    const t = line.trim();
    if (!t || t.startsWith('#')) continue;
    const [label, lenField, hex] = t.split(/\s+/);
    const m = /^(good|bad)#/.exec(label ?? '');
    if (!m || !lenField || !hex) throw new Error(`unreadable vector line: ${t.slice(0, 60)}`);
    const frame = Uint8Array.from(Buffer.from(hex, 'hex'));
    if (frame.length !== Number(lenField.replace('len=', ''))) throw new Error(`${label}: ${lenField} but ${frame.length} bytes`);
    out.push({ label: label!, good: m[1] === 'good', frame });
  }
  return out;
}

export function hex(b: Uint8Array): string {
  return Buffer.from(b).toString('hex');
}
