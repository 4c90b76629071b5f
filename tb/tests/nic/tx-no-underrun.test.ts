// No TX underrun inside a frame: once a frame's first beat is out on m_axis_tx, tvalid stays
// high until tlast (an Ethernet MAC underruns otherwise). Two NICs, 64-byte WRITEs, host
// memory answering after 50 cycles, 512-bit datapath: there the packetizer used to send the
// header beat and then wait ~60 cycles for the payload read (frame spread over 62 cycles).
// Checked twice: nic_top's assertion on m_axis_tx (the simulation stops on a drop of tvalid
// inside a frame), and the frame's span from first to last beat = its beats - 1 (the link
// takes every beat, so any longer span is a gap). NICGEN_SEED=<n> replays a run.

import { describe, expect, it } from 'vitest';
import { measureLatency } from '../../../bench/nic-latency.ts';
import { BTH_BYTES, ETH_HEADER_BYTES, IPV4_HEADER_BYTES, RETH_BYTES, UDP_HEADER_BYTES } from '../../model/headers.ts';

const BUILD_TIMEOUT = 900_000;
/** The bench's WRITE: 64 bytes, one WRITE ONLY packet (BTH + RETH), ICRC 4 bytes. */
const PAYLOAD = 64;
const FRAME_BYTES = ETH_HEADER_BYTES + IPV4_HEADER_BYTES + UDP_HEADER_BYTES + BTH_BYTES + RETH_BYTES + PAYLOAD + 4;

describe('nic_top TX: no gap inside a frame', () => {
  for (const [W, L] of [[512, 50], [64, 50]] as const) {
    it(`${W} bits, memory latency ${L}: every frame's beats are back to back`, async () => {
      const r = await measureLatency(W, L, 2) // the cold WRITE and one warm one, each seen exactly;
      const span = Math.ceil(FRAME_BYTES / (W / 8)) - 1;
      const where = `${W} bits, L=${L}, cycles from the doorbell (reads: ${r.lastReads})`;
      expect(r.cold.lastBeat - r.cold.firstBeat, `cold WRITE: last beat ${r.cold.lastBeat} - first beat ${r.cold.firstBeat}, ${where}`).toBe(span);
      expect(r.warm.lastBeat - r.warm.firstBeat, `warm WRITE: last beat ${r.warm.lastBeat} - first beat ${r.warm.firstBeat}, ${where}`).toBe(span);
    }, BUILD_TIMEOUT);
  }
});
