// Errors raised by the simulation layer. Each one names what failed and, where it
// applies, the clock cycle, so a failing test reads as a sentence.

/** Verilator or the C++ compiler failed; the message ends with the tail of the log. */
export class BuildError extends Error {
  readonly log: string;
  constructor(what: string, log: string) {
    const tail = log.trimEnd().split('\n').slice(-40).join('\n');
    super(`${what}\n--- last lines of the build log ---\n${tail}`);
    this.name = 'BuildError';
    this.log = log;
  }
}

/** A value written to a port does not fit its shape, or has the wrong JS type. */
export class PortValueError extends Error {
  constructor(port: string, message: string) {
    super(`port ${port}: ${message}`);
    this.name = 'PortValueError';
  }
}

/** Base of everything the running model reports: $stop, $fatal, $finish, internal errors. */
export abstract class SimTrapError extends Error {
  /** Rising edges completed when the trap fired (the edge on which it fired). */
  readonly cycle: number;
  /** Verilog file and line of the statement that fired, when known. */
  readonly file: string;
  readonly line: number;
  constructor(message: string, cycle: number, file: string, line: number) {
    super(message);
    this.cycle = cycle;
    this.file = file;
    this.line = line;
  }
}

/** A DSL `assert` fired: the manifest maps the `$stop` back to the TS call. */
export class AssertionFailure extends SimTrapError {
  readonly loc: string;
  readonly assertMessage: string;
  constructor(loc: string, assertMessage: string, cycle: number, file: string, line: number) {
    super(`assertion failed at ${loc} (cycle ${cycle}): ${assertMessage}`, cycle, file, line);
    this.name = 'AssertionFailure';
    this.loc = loc;
    this.assertMessage = assertMessage;
  }
}

/** A `$stop` or `$fatal` not produced by a DSL assert (hand-written Verilog, or `$fatal`). */
export class SimStopError extends SimTrapError {
  constructor(what: string, detail: string, cycle: number, file: string, line: number) {
    super(`${what} at ${file}:${line} (cycle ${cycle})${detail ? `: ${detail}` : ''}`, cycle, file, line);
    this.name = 'SimStopError';
  }
}

/** The design called `$finish`. */
export class SimFinishError extends SimTrapError {
  constructor(cycle: number, file: string, line: number) {
    super(`design called $finish at ${file}:${line} (cycle ${cycle})`, cycle, file, line);
    this.name = 'SimFinishError';
  }
}

/** Verilator's runtime reported an internal fatal error (e.g. a loop that does not converge). */
export class SimFatalError extends SimTrapError {
  constructor(detail: string, cycle: number, file: string, line: number) {
    super(`Verilator fatal error at ${file}:${line} (cycle ${cycle}): ${detail}`, cycle, file, line);
    this.name = 'SimFatalError';
  }
}

/** The model was used after it trapped or was destroyed. */
export class ModelStateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelStateError';
  }
}
