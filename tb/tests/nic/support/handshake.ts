// Cycle-exact ready/valid helpers for the NIC stage benches (until tb/bfm is ready).
//
// Timing rule used by every helper here: inputs are written only right after a rising edge;
// after the following falling edge those inputs have been applied and the design's outputs
// (including combinational ready/valid) are settled, so a handshake seen there is the one the
// design samples at the next rising edge.

import type { TestBench } from '../../../core/index.ts';

export interface In { value: number | bigint }
export interface Out { readonly value: number | bigint }

/** One full cycle: returns what `sample` saw before the rising edge, after that edge. */
export async function cycle<T>(tb: TestBench, sample: () => T): Promise<T> {
  await tb.falling();
  const v = sample();
  await tb.rising();
  return v;
}

/** Raise `valid` (payload already set) and hold it until a transfer; returns its cycle. */
export async function send(tb: TestBench, valid: In, ready: Out): Promise<number> {
  valid.value = 1;
  for (;;) {
    const fire = await cycle(tb, () => ready.value === 1);
    if (fire) { valid.value = 0; return tb.cycle; }
  }
}

/** Raise `ready` and wait for `valid`; returns the payload sampled at the transfer. */
export async function receive<T>(tb: TestBench, ready: In, valid: Out, payload: () => T, timeout = 10_000): Promise<T> {
  ready.value = 1;
  for (let n = 0; n < timeout; n++) {
    const got = await cycle(tb, () => (valid.value === 1 ? { v: payload() } : null));
    if (got) { ready.value = 0; return got.v; }
  }
  throw new Error(`receive: no valid within ${timeout} cycles (cycle ${tb.cycle})`);
}
