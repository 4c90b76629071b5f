// Bridge benchmark: the same stimulus on the same Verilated model, driven five ways —
// a plain C++ loop, TS with one native call per cycle, a TS coroutine testbench with
// three coroutines awaiting every rising edge, the same three as generator tasks (`yield
// Rising`, resumed in place by the scheduler), and the same three bodies under the barest
// promise-per-await loop (the floor any `await` scheduler pays; runBareCoroutines) — plus
// model build times (cold, and warm after a one-line Verilog change). Run: node --import tsx bench/harness.ts [cycles=200000] [rounds=11] [buildRepeats=3]
//
// The design is the DSL's 512-bit CRC32 (bench/crc512.ts): random data and packet framing
// with byte enables every cycle, the CRC read whenever crc_valid is high.
// Ratios: best wall time of interleaved rounds (the last line, as the goals are stated), and
// best CPU time, which a busy shared machine distorts far less (printed just before).

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildModel, type BuiltModel } from '../sim/build.ts';
import { Model } from '../sim/model.ts';
import { Rising, runTest } from '../tb/core/index.ts';
import { buildCppLoop, crcSlots, runCppLoop } from './cpp-loop.ts';
import { beatBytes, crcDesign, crcResidue, crcSources, CrcStimulus, type CrcChange } from './crc512.ts';
import { crc32 } from '../gen/lib/crc.ts';

/** Issue 13: three coroutines at least this share of the C++ loop's speed (CPU time). */
const COROUTINE_GOAL = 0.6;

interface RunResult {
  readonly seconds: number;
  /** Process CPU time (user + system) of the timed loop. */
  readonly cpuSeconds: number;
  readonly crc: number;
  readonly checksum: bigint;
}

const slots = crcSlots(crcDesign().manifest);
type Way = 'cpp' | 'call' | 'co' | 'gen' | 'bare';

async function timeBuild(label: string, tweak: number, change: CrcChange = 'match'): Promise<BuiltModel> {
  const b = await buildModel(crcSources(tweak, change), { quiet: true });
  if (!b.built) throw new Error(`${label}: expected a build, got a cache hit`);
  return b;
}

interface WarmTimes { readonly seconds: number[]; readonly phases: string[] }
interface BuildTimes { readonly cold: number[]; readonly warm: Record<CrcChange, WarmTimes>; readonly hit: number[] }
const changes: readonly CrcChange[] = ['match', 'network'];

/** A one-line change built on a warm cache, then its addon loaded. */
async function warmBuild(tweak: number, change: CrcChange, into: WarmTimes): Promise<void> {
  const t1 = performance.now();
  const warm = await timeBuild(`warm ${change}`, tweak, change);
  const warmLoad = performance.now();
  (await Model.load(crcSources(tweak, change), { quiet: true })).model.dispose();
  const t2 = performance.now();
  into.seconds.push((t2 - t1) / 1000);
  into.phases.push([...warm.phases, { name: 'load', seconds: (t2 - warmLoad) / 1000 }].map(p => `${p.name} ${p.seconds.toFixed(2)}`).join(', '));
}

/**
 * Each repeat uses a fresh model cache and a fresh private ccache (so other users of the
 * machine's ccache neither help nor hurt). Cold: both empty, runtime library included.
 * Warm: right after, the same design with one line changed (a new constant every time).
 */
async function buildTimes(repeats: number): Promise<BuildTimes> {
  const saved = { cache: process.env['NICGEN_CACHE'], ccache: process.env['CCACHE_DIR'] };
  const out: BuildTimes = { cold: [], warm: { match: { seconds: [], phases: [] }, network: { seconds: [], phases: [] } }, hit: [] };
  const salt = Date.now() % 100000;
  try {
    for (let r = 0; r < repeats; r++) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-bench-cache-'));
      try {
        process.env['NICGEN_CACHE'] = dir;
        process.env['CCACHE_DIR'] = path.join(dir, 'ccache');
        const t0 = performance.now();
        await timeBuild('cold', 0);
        out.cold.push((performance.now() - t0) / 1000);
        for (const change of changes) await warmBuild(salt * 16 + r + 1, change, out.warm[change]);
        const t2 = performance.now();
        await buildModel(crcSources(0), { quiet: true });
        out.hit.push((performance.now() - t2) / 1000);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }
    return out;
  } finally {
    if (saved.cache === undefined) delete process.env['NICGEN_CACHE']; else process.env['NICGEN_CACHE'] = saved.cache;
    if (saved.ccache === undefined) delete process.env['CCACHE_DIR']; else process.env['CCACHE_DIR'] = saved.ccache;
  }
}

function cpuSince(c0: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(c0);
  return (d.user + d.system) / 1e6;
}

/** Two cycles of reset with valid low, as the C++ loop does; returns the model's buffer. */
function resetModel(model: Model): Uint32Array {
  const buf = model.buffer;
  buf[slots.rst] = 1;
  buf[slots.valid] = 0;
  model.step(2);
  buf[slots.rst] = 0;
  return buf;
}

/** One native call per cycle over the shared buffer. */
function runCalls(model: Model, cycles: number): RunResult {
  const buf = resetModel(model);
  const stim = new CrcStimulus();
  let acc = 0;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < cycles; i++) {
    stim.beat(buf, slots);
    model.step(1);
    if (buf[slots.crcValid] !== 0) acc = (acc + buf[slots.crc]!) >>> 0;
  }
  const seconds = (performance.now() - t0) / 1000;
  return { seconds, cpuSeconds: cpuSince(c0), crc: buf[slots.crc]!, checksum: BigInt(acc) };
}

/**
 * Three coroutines on every rising edge: driver, monitor (sums CRCs), and a `match` checker,
 * written in either form of task: async functions awaiting `tb.rising()`, or generator
 * functions yielding `Rising` (resumed in place by the scheduler). The bodies' work between
 * waits is the same functions in both.
 */
async function runCoroutines(cycles: number, form: 'await' | 'generator'): Promise<RunResult> {
  let acc = 0;
  let crc = 0;
  let seconds = 0;
  let cpuSeconds = 0;
  await runTest(crcDesign(), async (dut, tb) => {
    dut.valid.value = 0;
    await tb.reset(2);
    const buf = tb.model.buffer;
    const stim = new CrcStimulus();
    const monitor = (): void => { if (dut.crc_valid.value) acc = (acc + Number(dut.crc.value)) >>> 0; };
    const check = (): void => {
      const want = dut.crc_valid.value === 1 && Number(dut.crc.value) === crcResidue ? 1 : 0;
      if (dut.match.value !== want) throw new Error(`match is ${dut.match.value}, want ${want} (crc ${dut.crc.value.toString(16)}) at cycle ${tb.cycle}`);
    };
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    if (form === 'await') {
      tb.fork(async () => { for (;;) { await tb.rising(); monitor(); } }, 'monitor');
      tb.fork(async () => { for (;;) { await tb.rising(); check(); } }, 'checker');
      for (let i = 0; i < cycles; i++) { stim.beat(buf, slots); await tb.rising(); }
    } else {
      tb.fork(function* () { for (;;) { yield Rising; monitor(); } }, 'monitor');
      tb.fork(function* () { for (;;) { yield Rising; check(); } }, 'checker');
      await tb.fork(function* () { for (let i = 0; i < cycles; i++) { stim.beat(buf, slots); yield Rising; } }, 'driver').join();
    }
    seconds = (performance.now() - t0) / 1000;
    cpuSeconds = cpuSince(c0);
    crc = Number(dut.crc.value);
  }, { seed: 1, maxCycles: cycles + 10 });
  return { seconds, cpuSeconds, crc, checksum: BigInt(acc) };
}

/**
 * The floor of the coroutine way: the same three bodies awaiting every rising edge under the
 * barest loop that keeps a promise per await and one task resumed at a time (each yield hands
 * on through one microtask, as the scheduler does), and nothing else: no wait records, cancel,
 * joins, timeouts, deadlock or misuse checks, cycle limit, tracing or attribution of triggers to
 * tasks. What any scheduler with cocotb's `await` API pays at least; printed beside ours.
 */
async function runBareCoroutines(model: Model, cycles: number): Promise<RunResult> {
  const buf = resetModel(model);
  const stim = new CrcStimulus();
  const matchAt = model.layout.byName.get('match')!.offset;
  interface Bare { resume: () => void }
  const tasks: Bare[] = [{ resume: () => {} }, { resume: () => {} }, { resume: () => {} }];
  let now: Bare[] = [];
  let next: Bare[] = [];
  let at = 0;
  let stop = false;
  let arming: Bare = tasks[0]!;
  const executor = (resolve: () => void): void => { arming.resume = resolve; };
  const handOn = (): void => {
    if (at < now.length) { now[at++]!.resume(); return; }
    if (stop) return;
    model.step(1);
    [now, next] = [next, now];
    next.length = 0;
    at = 0;
    handOn();
  };
  const settled = Promise.resolve();
  const rising = (t: Bare): Promise<void> => {
    arming = t;
    const p = new Promise<void>(executor);
    next.push(t);
    void settled.then(handOn);
    return p;
  };
  let acc = 0;
  let mismatch = '';
  let done!: () => void;
  const finished = new Promise<void>(resolve => { done = resolve; });
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  void (async () => {
    for (let i = 0; i < cycles; i++) { stim.beat(buf, slots); await rising(tasks[0]!); }
    stop = true;
    done();
  })();
  void (async () => {
    for (;;) { await rising(tasks[1]!); if (buf[slots.crcValid] !== 0) acc = (acc + buf[slots.crc]!) >>> 0; }
  })();
  void (async () => {
    for (;;) {
      await rising(tasks[2]!);
      const want = buf[slots.crcValid] === 1 && buf[slots.crc] === crcResidue ? 1 : 0;
      if (buf[matchAt] !== want && !mismatch) mismatch = `match is ${buf[matchAt]}, want ${want}`;
    }
  })();
  await finished;
  const seconds = (performance.now() - t0) / 1000;
  const cpuSeconds = cpuSince(c0);
  if (mismatch) throw new Error(`bare coroutines: ${mismatch}`);
  return { seconds, cpuSeconds, crc: buf[slots.crc]!, checksum: BigInt(acc) };
}

/** Some thousand beats checked against the software CRC32, so the design is known good. */
function checkDesign(model: Model, beats: number): number {
  const buf = resetModel(model);
  const stim = new CrcStimulus();
  let packet: number[] = [];
  let packets = 0;
  for (let i = 0; i < beats; i++) {
    stim.beat(buf, slots);
    const ended = buf[slots.valid] === 1 && buf[slots.last] === 1;
    if (buf[slots.valid] === 1) packet.push(...beatBytes(buf, slots));
    // crc_valid rises on the edge that takes a packet's last beat.
    const want = ended ? crc32(packet) : undefined;
    if (ended) { packet = []; packets++; }
    model.step(1);
    const got = buf[slots.crcValid] === 1 ? buf[slots.crc]! : undefined;
    if (got !== want) throw new Error(`crc32_parallel_bytes64 disagrees with software CRC32 at beat ${i} (replay: CrcStimulus from seed 1): crc ${got?.toString(16)} vs ${want?.toString(16)}`);
  }
  return packets;
}

const rate = (cycles: number, s: number): string => `${(cycles / s / 1e3).toFixed(0)} k cycles/s`;
const sorted = (xs: readonly number[]): number[] => [...xs].sort((a, b) => a - b);
const minMed = (xs: readonly number[]): string => {
  const s = sorted(xs);
  return `min ${s[0]!.toFixed(2)} s, median ${s[(s.length - 1) >> 1]!.toFixed(2)} s (${s.map(x => x.toFixed(2)).join(' ')})`;
};

async function main(): Promise<void> {
  const cycles = Number(process.argv[2] ?? 200_000);
  const rounds = Number(process.argv[3] ?? 11);
  const buildRepeats = Number(process.argv[4] ?? 3);
  const d = crcDesign();
  const lines = [...d.files.values()].reduce((n, t) => n + t.split('\n').length, 0);
  console.log(`design: ${d.manifest.top} (DSL crcParallel(CRC32) bytes=64, ${lines} lines of Verilog), ${cycles} cycles per run`);
  console.log(`machine: nproc ${os.cpus().length}, load ${os.loadavg().map(x => x.toFixed(2)).join(' ')}`);
  console.log("one-line changes (emitted Verilog, one constant differs): 'match' = the line assign match = crc_valid_reg && (crc_out == 32'h…);");
  console.log("  'network' = the first register mask in the line assign state_next = {(^(state_in & 32'h…) … (the per-cycle XOR network)");

  if (buildRepeats > 0) {
    const t = await buildTimes(buildRepeats);
    console.log(`build cold (empty model cache and ccache): ${minMed(t.cold)}`);
    for (const change of changes) {
      console.log(`build warm, one-line change '${change}' (+ load): ${minMed(t.warm[change].seconds)}`);
      for (const p of t.warm[change].phases) console.log(`  phases: ${p}`);
    }
    console.log(`cache hit:                             ${minMed(t.hit)}`);
  }

  const { model, build } = await Model.load(d);
  const packets = checkDesign(model, 3000);
  console.log(`design check: ${packets} packets match the software CRC32`);
  const exe = await buildCppLoop(build, d.manifest);

  // The machine may be shared (2 cores, other test runs): interleave the three ways over
  // several rounds and keep each one's best time, so load hits all of them alike.
  const best = (a: RunResult | undefined, b: RunResult): RunResult => (a === undefined || b.seconds < a.seconds ? b : a);
  const cpus: Record<Way, number[]> = { cpp: [], call: [], co: [], gen: [], bare: [] };
  let cpp: RunResult | undefined;
  let call: RunResult | undefined;
  let co: RunResult | undefined;
  let gen: RunResult | undefined;
  let bare: RunResult | undefined;
  const fresh = async (): Promise<Model> => (await Model.load(d)).model;
  for (let r = 0; r < rounds; r++) {
    const callModel = await fresh();
    const bareModel = await fresh();
    const runs = { cpp: await runCppLoop(exe, cycles), call: runCalls(callModel, cycles), co: await runCoroutines(cycles, 'await'), gen: await runCoroutines(cycles, 'generator'), bare: await runBareCoroutines(bareModel, cycles) };
    callModel.dispose();
    bareModel.dispose();
    cpp = best(cpp, runs.cpp);
    call = best(call, runs.call);
    co = best(co, runs.co);
    gen = best(gen, runs.gen);
    bare = best(bare, runs.bare);
    for (const k of ['cpp', 'call', 'co', 'gen', 'bare'] as const) cpus[k].push(runs[k].cpuSeconds);
  }
  if (!cpp || !call || !co || !gen || !bare) throw new Error('no rounds ran');

  for (const [name, r] of [['call', call], ['coroutine', co], ['generator', gen], ['bare coroutine', bare]] as const) {
    if (r.crc !== cpp.crc || r.checksum !== cpp.checksum) {
      throw new Error(`${name} run disagrees with the C++ loop: crc ${r.crc} vs ${cpp.crc}, checksum ${r.checksum} vs ${cpp.checksum}`);
    }
  }
  const ns = (s: number): string => `${(s / cycles * 1e9).toFixed(0)} ns/cycle`;
  const cpuBest = (k: Way): number => sorted(cpus[k])[0]!;
  const line = (label: string, r: RunResult, k: Way): void =>
    console.log(`${label}${rate(cycles, r.seconds)} (${ns(r.seconds)}; cpu time ${ns(cpuBest(k))})`);
  line('c++ loop:            ', cpp, 'cpp');
  line('ts, call per cycle:  ', call, 'call');
  line('ts, 3 coroutines:    ', co, 'co');
  line('ts, 3 generators:    ', gen, 'gen');
  line('  floor, bare awaits: ', bare, 'bare');
  console.log(`all five agree: crc ${cpp.crc.toString(16)}, checksum ${cpp.checksum}`);
  // CPU time is what a busy shared machine distorts least (wall time includes waiting for a core).
  // floor/cpp: what three coroutines awaiting every edge reach at best (runBareCoroutines).
  // The goal (issue 13): three coroutines >= 0.6 of the C++ loop with the `await` API kept. The
  // generator form is the fast way to write them; the await form is printed beside it (its floor,
  // the barest promise-per-await loop, is about 0.6 itself).
  const genRatio = cpuBest('cpp') / cpuBest('gen');
  console.log(`cpu-time ratio: call/cpp=${(cpuBest('cpp') / cpuBest('call')).toFixed(2)} coroutine/cpp=${(cpuBest('cpp') / cpuBest('co')).toFixed(2)} generator/cpp=${genRatio.toFixed(2)} floor/cpp=${(cpuBest('cpp') / cpuBest('bare')).toFixed(2)} (goal: three coroutines >= ${COROUTINE_GOAL}, generator form: ${genRatio >= COROUTINE_GOAL ? 'goal met' : 'GOAL MISSED'}; await form coroutine/cpp printed beside)`);
  console.log(`harness ratio: call/cpp=${(cpp.seconds / call.seconds).toFixed(2)} coroutine/cpp=${(cpp.seconds / co.seconds).toFixed(2)} generator/cpp=${(cpp.seconds / gen.seconds).toFixed(2)}`);
}

await main();
