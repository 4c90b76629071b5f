// A loaded model: the native instance, its word buffer, and port access by name.

import * as path from 'node:path';
import type { Manifest } from '../gen/emit/manifest.ts';
import { buildModel, type BuildOptions, type BuiltModel, type DesignSources } from './build.ts';
import { ClockTime } from './clock.ts';
import { stackAt } from './caller.ts';
import { projectRoot } from './cache.ts';
import {
  AssertionFailure, assertionReport, ModelStateError, PortValueError, SimFatalError, SimFinishError, SimStopError, type SimTrapError,
} from './errors.ts';
import { ClockScheduleError, defaultSchedule, schedule, type ClockSchedule } from './clocks.ts';
import { computeLayout, type Layout, type PortSlot } from './layout.ts';
import { loadAddon, type NativeModel, type NativeTrap } from './native.ts';
import { codecFor, type Codec, type PortValue } from './values.ts';
import { TrapKind, type TraceFormat } from './wrapper.ts';

/** Reads and writes one port's words in the shared buffer. */
export interface PortAccess {
  readonly slot: PortSlot;
  read(): PortValue;
  write(value: PortValue): void;
}

function lastLine(text: string): string {
  const lines = text.split('\n').map(l => l.trim()).filter(l => l.length > 0);
  return lines[lines.length - 1] ?? '';
}

export class Model {
  readonly manifest: Manifest;
  readonly layout: Layout;
  /** Inputs then outputs, 32-bit words, little-endian word order per port. */
  readonly buffer: Uint32Array;
  readonly traceFormat: TraceFormat;
  /** The design's time precision as a power of ten (-12: the dump counts picoseconds). */
  readonly timePrecision: number;
  private clockTime = new ClockTime();
  private readonly coverage: boolean;
  private readonly native: NativeModel;
  /** The hot native entry points, held directly: the addon's object is in dictionary mode
   *  (properties added from C++), so looking them up per call costs more than the call. */
  private readonly nativeStep: (cycles: number) => number | undefined;
  private readonly nativeHalf: (level: number) => number | undefined;
  private readonly codecs = new Map<string, Codec>();
  private cycles = 0;
  /** With several clocks: each clock's schedule, by port name (sim/clocks.ts). */
  readonly #schedules = new Map<string, ClockSchedule>();
  /** A falling edge happened since the last rising one. */
  private clockLow = false;
  private failed: SimTrapError | undefined;
  private disposed = false;

  constructor(built: Pick<BuiltModel, 'addonPath' | 'trace'>, manifest: Manifest) {
    const addon = loadAddon(built.addonPath);
    this.manifest = manifest;
    this.layout = computeLayout(manifest);
    if (addon.totalWords !== this.layout.totalWords) {
      throw new ModelStateError(`${built.addonPath} was built for ${addon.totalWords} buffer words, manifest needs ${this.layout.totalWords}`);
    }
    this.buffer = new Uint32Array(Math.max(1, this.layout.totalWords));
    this.traceFormat = built.trace;
    this.coverage = addon.coverage === true;
    this.native = addon.create(this.buffer);
    this.nativeStep = this.native.step;
    this.nativeHalf = this.native.half;
    this.timePrecision = this.native.timePrecision();
    this.native.setPeriod(this.clockTime.unitsPerPeriod(this.timePrecision));
    if (this.layout.clocks.length > 1) for (const c of this.layout.clocks) this.#schedules.set(c.name, defaultSchedule);
  }

  /** The clock period, and cycle → dump time (rising edge k at k × period). */
  get clock(): ClockTime {
    return this.clockTime;
  }

  /** Sets the clock period (default 4 ns). Only before the first edge: time must not jump. */
  setClockPeriod(periodNs: number): void {
    const clock = new ClockTime(periodNs);
    if (this.cycles !== 0 || this.clockLow) throw new ModelStateError(`the clock period of ${this.manifest.top} can only be set before the first clock edge`);
    this.native.setPeriod(clock.unitsPerPeriod(this.timePrecision));
    this.clockTime = clock;
  }

  /** True when the model runs in ticks with a schedule per clock (more than one clock input). */
  get multiClock(): boolean {
    return this.#schedules.size > 0;
  }

  /** A clock's schedule (models with several clocks). */
  clockSchedule(name: string): ClockSchedule {
    const s = this.#schedules.get(name);
    if (!s) throw new ClockScheduleError(this.multiClock ? `${this.manifest.top} has no clock input named ${name} (clocks: ${[...this.#schedules.keys()].join(', ')})` : `${this.manifest.top} has ${this.layout.clocks.length} clock input${this.layout.clocks.length === 1 ? '' : 's'}: clock schedules are for models with several`);
    return s;
  }

  /**
   * Sets the schedules of some clocks (in ticks; the others keep theirs). Only before the first
   * tick: waits already registered were computed from the old schedules.
   */
  setClockSchedules(spec: Readonly<Record<string, { period: number; high?: number; phase?: number }>>): void {
    this.live();
    if (this.cycles > 0 || this.clockLow) throw new ClockScheduleError(`clock schedules of ${this.manifest.top} can only be set before the first tick (now at tick ${this.cycles})`);
    for (const [name, s] of Object.entries(spec)) {
      this.clockSchedule(name);
      this.#schedules.set(name, schedule(name, s));
    }
    const words = new Uint32Array(3 * this.layout.clocks.length);
    this.layout.clocks.forEach((c, i) => {
      const s = this.#schedules.get(c.name)!;
      words.set([s.period, s.high, s.phase], 3 * i);
    });
    this.native.clocks!(words);
  }

  /** Builds (or finds in the cache) and loads a model. */
  static async load(sources: DesignSources, options: BuildOptions = {}): Promise<{ model: Model; build: BuiltModel }> {
    const build = await buildModel(sources, options);
    return { model: new Model(build, sources.manifest), build };
  }

  /** Rising edges so far. */
  get cycle(): number {
    return this.cycles;
  }

  access(name: string): PortAccess {
    const slot = this.layout.byName.get(name);
    if (!slot) {
      const clock = this.layout.clock?.name === name ? ' (the clock is driven by step())' : '';
      throw new PortValueError(name, `no such port in ${this.manifest.top}${clock}`);
    }
    let codec = this.codecs.get(name);
    if (!codec) {
      codec = codecFor(name, slot.port.shape);
      this.codecs.set(name, codec);
    }
    const buf = this.buffer;
    const o = slot.offset;
    const c = codec;
    const isInput = slot.port.dir === 'input';
    return {
      slot,
      read: () => c.read(buf, o),
      write: (value: PortValue) => {
        if (!isInput) throw new PortValueError(name, 'is an output and cannot be written');
        c.write(buf, o, value);
      },
    };
  }

  /**
   * The port's raw words in the shared buffer (LSB word first), for bus models that move
   * wide data without bigint conversions. Writing an output's view has no effect on the model.
   */
  view(name: string): Uint32Array {
    const slot = this.access(name).slot;
    return this.buffer.subarray(slot.offset, slot.offset + slot.words);
  }

  get(name: string): PortValue {
    return this.access(name).read();
  }

  set(name: string, value: PortValue): void {
    this.access(name).write(value);
  }

  /** `cycles` full clock cycles with the current inputs; throws a SimTrapError on a trap. */
  step(cycles = 1): void {
    if (this.failed !== undefined || this.disposed) this.live();
    if (!(cycles >= 0 && Number.isInteger(cycles))) throw new RangeError(`step: cycles must be a non-negative integer, got ${cycles}`);
    if (this.nativeStep(cycles) !== undefined) this.trap();
    this.cycles += cycles;
  }

  /** Half a cycle: 0 = falling edge, 1 = rising edge (counts a cycle). */
  half(level: 0 | 1): void {
    if (this.failed !== undefined || this.disposed) this.live();
    if (this.nativeHalf(level) !== undefined) this.trap();
    if (level === 1) this.cycles++;
    this.clockLow = level === 0;
  }

  /** Settles combinational logic for the current inputs without a clock edge. */
  eval(): void {
    this.live();
    if (this.native.eval() !== undefined) this.trap();
  }

  /** Starts dumping waves to `file` (FST or VCD, as built), closing any open dump. */
  traceOpen(file: string, depth = 99): void {
    this.live();
    this.native.traceOpen(path.resolve(file), depth);
  }

  /** Extends the open dump by `cycles` periods without evaluating anything (values hold, the
   *  clock stops): after a failure, so a viewer has room right of the failing cycle. */
  traceHold(cycles: number): void {
    if (!this.disposed) this.native.traceHold(cycles);
  }

  traceClose(): void {
    if (!this.disposed) this.native.traceClose();
  }

  /** True for a model built with BuildOptions.coverage. */
  get hasCoverage(): boolean {
    return this.coverage;
  }

  /** Writes the model's coverage counters (Verilator's coverage.dat format) to `file`.
   *  Works after a trap too (the counters are still there); not after dispose(). */
  writeCoverage(file: string): void {
    if (this.disposed) throw new ModelStateError(`model ${this.manifest.top} was disposed`);
    if (!this.coverage) throw new ModelStateError(`model ${this.manifest.top} was built without coverage (BuildOptions.coverage)`);
    this.native.coverageWrite(path.resolve(file));
  }

  /** Closes the trace and frees the native model now (not at some later garbage collection,
   *  where a large model's teardown would be charged to whatever runs then). */
  dispose(): void {
    if (this.disposed) return;
    this.native.destroy();
    this.disposed = true;
  }

  private live(): void {
    if (this.disposed) throw new ModelStateError(`model ${this.manifest.top} was disposed`);
    if (this.failed) throw new ModelStateError(`model ${this.manifest.top} stopped at cycle ${this.failed.cycle}: ${this.failed.message}`);
  }

  private trap(): never {
    const info = this.native.trap();
    this.cycles = this.native.cycle();
    const err = info ? this.toError(info) : new SimFatalError('trap reported without details', this.cycles, '?', 0);
    const annotated = this.clockTime.annotate(err.message);
    if (err.stack?.startsWith(`${err.name}: ${err.message}`)) err.stack = `${err.name}: ${annotated}${err.stack.slice(err.name.length + 2 + err.message.length)}`;
    err.message = annotated;
    this.failed = err;
    throw err;
  }

  private toError(t: NativeTrap): SimTrapError {
    const cycle = this.cycles;
    switch (t.kind) {
      case TrapKind.stop: {
        const base = path.basename(t.file);
        const a = this.manifest.asserts.find(x => x.line === t.line && (x.file === t.file || path.basename(x.file) === base));
        if (a) {
          const err = new AssertionFailure(a.loc, a.message, cycle, t.file, t.line, assertionReport(t.output, a.loc));
          // The user's design line is the code frame a test runner shows, not this file.
          stackAt(err, a.loc, projectRoot);
          return err;
        }
        return new SimStopError('$stop', lastLine(t.output), cycle, t.file, t.line);
      }
      case TrapKind.finish: return new SimFinishError(cycle, t.file, t.line);
      default: return new SimFatalError(t.message || lastLine(t.output), cycle, t.file, t.line);
    }
  }
}
