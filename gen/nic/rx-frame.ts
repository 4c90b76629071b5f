// The stream between nic_icrc_check and nic_rx_parser: received frames that passed the
// frame-level checks, with the frame's length in bytes on tuser (the same value on every
// beat of the frame). The ICRC check is store-and-forward, so it knows the length before
// the first beat leaves; handing it on lets the parser check "IPv4 total length vs frame
// length" before it forwards any payload byte, instead of discovering a truncated frame
// after its payload went downstream. (An addition to types.ts's set of interfaces.)

import { axiStream } from '../lib/interfaces.ts';

/** Bits of the frame-length sideband. */
export const RX_LEN_WIDTH = 16;

export function rxFrameStream(dataWidth: number) {
  return axiStream({ dataWidth, keep: true, last: true, userWidth: RX_LEN_WIDTH });
}
