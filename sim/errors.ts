// Errors raised by the simulation layer. Each one names what failed and, where it
// applies, the clock cycle, so a failing test reads as a sentence.

import { formatSite, stackAt, userFrame } from './caller.ts';

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

/** A value written to a port does not fit its shape, or has the wrong JS type. Names the
 *  testbench line that wrote it (the first frame outside sim/ and tb/core/). */
export class PortValueError extends Error {
  /** `tb/tests/foo.test.ts:12:5`, when the stack shows it. */
  readonly site: string | undefined;
  constructor(port: string, message: string) {
    const frame = userFrame(new Error().stack);
    const site = frame ? formatSite(frame) : undefined;
    super(`port ${port}: ${message}${site ? ` (written at ${site})` : ''}`);
    this.name = 'PortValueError';
    this.site = site;
    if (frame) stackAt(this, `${frame.file}:${frame.line}:${frame.column}`);
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

/** What the emitted `$display` of an assertion printed: the instance and the signals' values. */
export interface AssertionReport {
  /** Hierarchical instance, `TOP.nic_top.u_wqe_fetch`. */
  readonly instance: string;
  /** `name=hex` of each signal the condition names (up to 64 bits each). */
  readonly values: readonly string[];
}

/** A DSL `assert` fired: the manifest maps the `$stop` back to the TS call. */
export class AssertionFailure extends SimTrapError {
  readonly loc: string;
  readonly assertMessage: string;
  readonly report: AssertionReport | undefined;
  constructor(loc: string, assertMessage: string, cycle: number, file: string, line: number, report?: AssertionReport) {
    const where = report ? `; in ${report.instance}${report.values.length ? `, ${report.values.join(' ')} (hex)` : ''}` : '';
    super(`assertion failed at ${loc} (cycle ${cycle}): ${assertMessage}${where}`, cycle, file, line);
    this.name = 'AssertionFailure';
    this.loc = loc;
    this.assertMessage = assertMessage;
    this.report = report;
  }
}

/** Finds an assertion's `$display` line in the design's output and reads instance and values. */
export function assertionReport(output: string, loc: string): AssertionReport | undefined {
  const marker = `: assertion failed at ${loc}: `;
  const line = output.split('\n').reverse().find(l => l.includes(marker));
  if (!line) return undefined;
  const instance = line.slice(0, line.indexOf(marker)).replace(/^\[\d+\]\s*/, '').trim();
  const vals = /\[([^\]]*)\]\s*$/.exec(line);
  return { instance, values: vals ? vals[1]!.trim().split(/\s+/).filter(v => v.includes('=')) : [] };
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
