// The go-back-N goodput bound: the best WRITE goodput a requester that resends from the lost
// packet on (go-back-N, no selective repeat) can reach when each data packet is lost with
// probability p, independently.
//
// When a packet is lost, the sender learns it one detection time later (the next packet
// reaches the responder, which answers NAK 0x60, and the NAK comes back: the round trip R).
// Meanwhile it keeps sending, at most W packets beyond the oldest unacknowledged one, all of
// which the responder drops (out of sequence) and which are sent again. So each loss costs
//   K = min(W, 1 + ceil(R / T))   packet times,   T = bus cycles of one packet,
// the lost packet included. With every transmission lost with probability p, the expected
// transmissions per delivered packet are (1 - p + K p) / (1 - p), hence
//   efficiency = (1 - p) / (1 + (K - 1) p)
//   bound      = limit x efficiency
// where `limit` is the lossless framing limit of the same messages on the same bus
// (bench/nic-limit.ts). At p = 0 the bound is the limit; with K = 1 (a loss costs only
// itself) it is limit x (1 - p). It is an upper bound: it ignores the loss of a message's
// last packet when nothing follows it on the QP (then only the ACK timeout recovers), lost
// ACKs, and any gap the NIC leaves while it turns around.

export const GBN_FORMULA = 'bound = limit x (1 - p) / (1 + (K - 1) p), K = min(W, 1 + ceil(R / T))';

export interface GoBackN {
  /** Probability that a data packet is lost, 0 <= p < 1. */
  readonly loss: number;
  /** Packets the requester may have outstanding (its window). */
  readonly windowPackets: number;
  /** Cycles from a lost packet's end on the wire to the NAK reaching the requester. */
  readonly roundTripCycles: number;
  /** Bus cycles of one data packet (frame beats at the path MTU). */
  readonly packetCycles: number;
  /** Lossless goodput (the framing limit), as a fraction of the bus. */
  readonly limit: number;
}

export interface GoBackNBound {
  /** Packet times one loss costs, the lost packet included. */
  readonly k: number;
  /** Delivered packets per transmission. */
  readonly efficiency: number;
  /** limit x efficiency. */
  readonly bound: number;
}

export function goBackNBound(g: GoBackN): GoBackNBound {
  if (!(g.loss >= 0 && g.loss < 1)) throw new RangeError(`loss ${g.loss} must be in [0, 1)`);
  if (!(Number.isInteger(g.windowPackets) && g.windowPackets >= 1)) throw new RangeError(`window ${g.windowPackets} must be a whole number of packets >= 1`);
  if (!(g.roundTripCycles >= 0 && g.packetCycles > 0)) throw new RangeError(`round trip ${g.roundTripCycles} and packet time ${g.packetCycles} cycles must be >= 0 and > 0`);
  const k = Math.min(g.windowPackets, 1 + Math.ceil(g.roundTripCycles / g.packetCycles));
  const efficiency = (1 - g.loss) / (1 + (k - 1) * g.loss);
  return { k, efficiency, bound: g.limit * efficiency };
}
