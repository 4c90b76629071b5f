// The error every bus model and checker throws on a protocol violation. Thrown inside a
// testbench coroutine it fails the test (runTest wraps it in a TestFailure with the seed).
//
// Cycle numbering is tb.cycle's: cycle N is the clock period after rising edge N, i.e. the
// values were on the bus in that period and the design sampled them at edge N+1.

export class ProtocolError extends Error {
  /** The bus instance, e.g. `m_axi` or `s_axis (source)`. */
  readonly bus: string;
  /** Rule name in the style of ARM's protocol checkers, e.g. `TDATA_STABLE`, `AWADDR_BOUNDARY`. */
  readonly rule: string;
  readonly cycle: number;

  constructor(bus: string, rule: string, cycle: number, detail: string) {
    super(`${bus}: ${rule} violated in cycle ${cycle}: ${detail}`);
    this.name = 'ProtocolError';
    this.bus = bus;
    this.rule = rule;
    this.cycle = cycle;
  }
}

/** A response the test did not expect (SLVERR/DECERR), or a transfer that never finished. */
export class BusResponseError extends Error {
  readonly bus: string;
  readonly cycle: number;
  constructor(bus: string, cycle: number, detail: string) {
    super(`${bus}: ${detail} (cycle ${cycle})`);
    this.name = 'BusResponseError';
    this.bus = bus;
    this.cycle = cycle;
  }
}
