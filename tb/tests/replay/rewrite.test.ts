// Dest QPN rewriting (captureQpn): random frames of every opcode from the TS packet model.
// A mapped frame decodes to the same packet with only DestQP changed and a good ICRC; a frame
// with a corrupted ICRC stays corrupted; mapping back restores the captured bytes exactly;
// unmapped and non-RoCE frames pass through untouched.

import { describe, expect, it } from 'vitest';
import { OPCODES } from '../../model/opcodes.ts';
import { decodeRoce, encodeRoce } from '../../model/packet.ts';
import { rewriteDestQp } from '../../replay/rewrite.ts';
import { randomPacket } from '../model/helpers.ts';
import { testRng } from '../seed.ts';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

describe('replay dest QPN rewrite', () => {
  it('changes DestQP only, keeps the ICRC right, and maps back to the captured bytes', () => {
    const rng = testRng('rewrite');
    for (let n = 0; n < 200; n++) {
      const pkt = randomPacket(rng, rng.pick(OPCODES).code, 300);
      const frame = encodeRoce(pkt);
      const to = rng.int(0, 0xffffff);
      const out = rewriteDestQp(frame, new Map([[pkt.bth.destQp, to]]));
      const d = decodeRoce(out), orig = decodeRoce(frame);
      if (!d.ok || !orig.ok) throw new Error(`#${n} ${hex(frame)}: ${d.ok ? '' : d.detail} ${orig.ok ? '' : orig.detail}`);
      const { bth, ...rest } = d.pkt;
      const { bth: bth0, ...rest0 } = orig.pkt;
      expect({ ...bth, destQp: bth0.destQp }, `#${n}`).toEqual(bth0);
      expect(bth.destQp, `#${n}`).toBe(to);
      expect(rest, `#${n}`).toEqual(rest0);
      expect(out.length).toBe(frame.length);
      expect(hex(rewriteDestQp(out, new Map([[to, pkt.bth.destQp]]))), `#${n}: mapped back`).toBe(hex(frame));
    }
  });

  it('keeps a bad ICRC bad (the same error pattern), and passes unmapped or non-RoCE frames through', () => {
    const rng = testRng('rewrite bad ICRC');
    for (let n = 0; n < 50; n++) {
      const pkt = randomPacket(rng, rng.pick(OPCODES).code, 300);
      const frame = encodeRoce(pkt);
      frame[frame.length - 1 - rng.int(0, 3)]! ^= 1 << rng.int(0, 7);
      const to = pkt.bth.destQp ^ (1 + rng.int(0, 0xfffffe));
      const out = rewriteDestQp(frame, new Map([[pkt.bth.destQp, to]]));
      const d = decodeRoce(out);
      expect(d.ok ? 'ok' : d.reason, `#${n}`).toBe('bad-icrc');
      expect(hex(rewriteDestQp(out, new Map([[to, pkt.bth.destQp]]))), `#${n}: mapped back`).toBe(hex(frame));
      expect(rewriteDestQp(frame, new Map([[to, pkt.bth.destQp]]))).toBe(frame);
    }
    const arp = Uint8Array.from({ length: 60 }, (_, i) => (i === 12 ? 0x08 : i === 13 ? 0x06 : i));
    expect(rewriteDestQp(arp, new Map([[0x0d0e0f, 1]]))).toBe(arp);
  });
});
