// The NIC benchmarks of `make bench`, measured side by side in one run and printed as a table
// and one summary line per goal (docs/bench.md says what each number means). Never a test:
// goals are reported met or missed, the exit status only says whether every bench ran.
// Run: node --import tsx bench/nic.ts [--quick] [--gbn] [--many-qp]   (NICGEN_BENCH_QUICK=1: fewer
// messages; --gbn: only WRITE goodput under loss and the recovery times; --many-qp: only the
// goodput with 256 QPs active)

import { GOODPUT_GOAL, measureGoodput, type GoodputResult, type Span } from './nic-goodput.ts';
import { LINK_LATENCY, latencyGoal, measureLatency, type LatencyResult } from './nic-latency.ts';
import { LIMIT_FORMULA } from './nic-limit.ts';
import { READ_COUNT, READ_GOODPUT_GOAL, READ_LIMIT_FORMULA, measureReadGoodput, measureReadLatency, type ReadGoodputResult, type ReadLatencyResult } from './nic-read.ts';
import { GBN_FORMULA } from './gbn-bound.ts';
import { GBN_GOAL, GBN_LOSSES, GBN_LOSSES_ENABLED, GBN_MAX_MESSAGES, GBN_QPS, RECOVERY_ENABLED, gbnMessages, measureGbnGoodput, measureRecovery, type GbnResult, type RecoveryResult } from './nic-gbn.ts';
import { MANY_QPS, MANY_QP_GOAL, manyQpTable, measureManyQp, type ManyQpResult } from './nic-many-qp.ts';
import { benchSeed } from './nic-pair.ts';
import { SIMSPEED_GOAL, bestRate, cppPairRate, simspeedMet, speedMessages, tsStepRate, type Rate } from './nic-simspeed.ts';
import { TLB_GOAL, hitRate, measureTlb, type TlbResult } from './nic-tlb.ts';

const quick = process.argv.includes('--quick') || process.env['NICGEN_BENCH_QUICK'] === '1';
const WIDTHS = [64, 512];
const MEM_LATENCIES = [0, 50];
/** Host memory latencies of the slow-host WRITE goodput rows (cycles). */
const HOST_LATENCIES = [64, 256];
const plan = quick
  ? { messages: 2, latencyWrites: 3, loopCycles: 50_000, speedRounds: 1 }
  : { messages: 6, latencyWrites: 5, loopCycles: 100_000, speedRounds: 5 };

const mark = (met: boolean): string => (met ? 'goal met' : 'GOAL MISSED');
const pct = (x: number): string => `${(100 * x).toFixed(2)} %`;
const failures: string[] = [];

/** Runs one measurement; a failure is printed and counted, and the other benches still run. */
async function attempt<T>(what: string, fn: () => Promise<T>): Promise<T | undefined> {
  const t0 = performance.now();
  try {
    const r = await fn();
    if (process.env['NICGEN_VERBOSE']) console.log(`  (${what}: ${((performance.now() - t0) / 1000).toFixed(1)} s wall, model build included)`);
    return r;
  } catch (e) {
    failures.push(what);
    console.log(`  ${what} FAILED: ${e instanceof Error ? e.message : String(e)}`);
    return undefined;
  }
}

function goodputTable(rs: readonly GoodputResult[]): string {
  const rows = rs.map(r => `  ${String(r.dataWidth).padStart(5)}b   ${r.bus.toFixed(4)}   ${r.limit.toFixed(4)}   ${(r.bus / r.limit).toFixed(4)}       ${r.endToEnd.toFixed(4)}      ${r.frames}`);
  return ['  width   bus      limit    bus/limit    end to end  frames', ...rows].join('\n');
}

const col = (warm: number, cold: number): string => `${String(warm).padStart(4)} (cold ${String(cold).padStart(3)})`;

function latencyTable(rs: readonly LatencyResult[]): string {
  const rows = rs.map(r => {
    const g = latencyGoal(r.memLatency);
    return `  ${String(r.dataWidth).padStart(5)}b  ${String(r.memLatency).padStart(3)}  ${col(r.warm.firstBeat, r.cold.firstBeat)}  ${String(g).padStart(4)} ${r.warm.firstBeat <= g ? 'met   ' : 'MISSED'}  ${col(r.warm.lastBeat, r.cold.lastBeat)}  ${col(r.warm.cqe, r.cold.cqe)}`;
  });
  const reads = rs.map(r => `  ${r.dataWidth}b L=${r.memLatency}, last WRITE: ${r.lastReads}`);
  return ['  width    L  first beat       goal         last beat        CQE', ...rows,
    '  A\'s memory reads until the frame\'s last beat (AR(beats)+cycle, R+cycle of the last beat; WQE, PTE line, payload):', ...reads].join('\n');
}

function readGoodputTable(rs: readonly ReadGoodputResult[]): string {
  const rows = rs.map(r => `  ${String(r.dataWidth).padStart(5)}b  ${String(r.qps).padStart(3)}   ${r.bus.toFixed(4)}   ${r.limit.toFixed(4)}   ${(r.bus / r.limit).toFixed(4)}       ${r.endToEnd.toFixed(4)}      ${r.frames}`);
  return ['  width  QPs   bus      limit    bus/limit    end to end  frames', ...rows].join('\n');
}

function readLatencyTable(rs: readonly ReadLatencyResult[]): string {
  const rows = rs.map(r => `  ${String(r.dataWidth).padStart(5)}b  ${String(r.memLatency).padStart(3)}  ${String(r.requestBeat).padStart(13)}  ${col(r.warm, r.cold)}`);
  return ['  width    L  request beat   CQE', ...rows].join('\n');
}

function gbnTable(rs: readonly GbnResult[]): string {
  const rows = rs.map(r => `  ${String(r.dataWidth).padStart(5)}b  ${String(r.qps).padStart(3)}  ${pct(r.loss).padStart(7)}   ${r.goodput.toFixed(4)}   ${r.bound.bound.toFixed(4)}   ${(r.goodput / r.bound.bound).toFixed(4)}   ${String(r.bound.k).padStart(2)}  ${String(r.roundTrip).padStart(5)}  ${String(r.packetCycles).padStart(4)}   ${r.framesSent} (${r.framesDropped} dropped)`);
  return ['  width  QPs     loss   goodput  bound    ratio    K      R     T   frames', ...rows].join('\n');
}

function tlbTable(rs: readonly TlbResult[]): string {
  const rows = rs.map(r => `  ${String(r.dataWidth).padStart(5)}b  A (lkey) ${r.a.hits}/${r.a.hits + r.a.misses} = ${pct(hitRate(r.a))}   B (rkey) ${r.b.hits}/${r.b.hits + r.b.misses} = ${pct(hitRate(r.b))}`);
  return rows.join('\n');
}

/** WRITE goodput under loss beside the go-back-N bound, and recovery times (the lossless
 *  points give the round trip). `nic.ts --gbn` runs only this part. */
async function lossSection(): Promise<{ gbn: GbnResult[]; recovery: RecoveryResult[] }> {
    console.log(`\n-- WRITE goodput with random loss on A->B: 64 KiB WRITEs (${plan.messages + 2} lossless; lossy: ~8 expected drops, at most ${GBN_MAX_MESSAGES}), path MTU 4096, 1 and 4 QPs, memory latency 0, no back-pressure, retry 7, ACK timeout 2^16`);
    console.log(`   beside the go-back-N bound: ${GBN_FORMULA}`);
    console.log('   (R = median ACK round trip + one packet time T, measured in the same run; W = 16 messages x 16 packets)');
    const gbn: GbnResult[] = [];
    const off = GBN_LOSSES.filter(l => !GBN_LOSSES_ENABLED.includes(l));
    for (const qps of GBN_QPS) {
      for (const w of WIDTHS) {
        for (const loss of GBN_LOSSES_ENABLED) {
          const r = await attempt(`gbn goodput ${w}b ${qps} QP loss ${loss}`, () => measureGbnGoodput(w, qps, loss, gbnMessages(loss, plan.messages + 2)));
          if (r) gbn.push(r);
        }
      }
    }
    console.log(gbnTable(gbn));
    if (off.length) console.log(`  loss ${off.map(pct).join(', ')}: not run, they need retransmission (issue 11's requester; enable in bench/nic-gbn.ts GBN_LOSSES_ENABLED)`);
    const recovery: RecoveryResult[] = [];
    if (RECOVERY_ENABLED) {
      for (const w of WIDTHS) {
        const rt = gbn.find(r => r.dataWidth === w && r.loss === 0)?.roundTrip ?? 0;
        for (const path of ['nak', 'timeout'] as const) {
          const r = await attempt(`recovery ${w}b ${path}`, () => measureRecovery(w, path, rt));
          if (r) recovery.push(r);
        }
      }
      for (const r of recovery) console.log(`  recovery ${r.dataWidth}b ${r.path}: ${r.cycles} cycles from the drop to the retransmission's first beat (goal <= ${r.goal}) ${r.cycles <= r.goal ? 'met' : 'MISSED'}; ${r.lastBeat} to its last beat`);
    } else {
      console.log('  recovery time (dropped packet -> retransmission, NAK and timeout paths): not run, needs retransmission (bench/nic-gbn.ts RECOVERY_ENABLED)');
    }
  return { gbn, recovery };
}

/** WRITE and READ goodput with 256 QPs active at once (bench/nic-many-qp.ts). */
async function manyQpSection(): Promise<ManyQpResult[]> {
  console.log(`\n-- goodput with ${MANY_QPS.join(', ')} QPs active: one 8 KiB message per QP (2 packets at path MTU 4096), all posted, then every doorbell rung;`);
  console.log('   WRITE A->B (payload on A\'s TX) and READ of B by A (responses on B\'s TX), memory latency 0, no back-pressure;');
  console.log('   bus = payload of every data frame after the first per cycle from its last beat to the last frame\'s, / (DATA_WIDTH/8); active = distinct QPs seen');
  const rs: ManyQpResult[] = [];
  for (const op of ['write', 'read'] as const) {
    for (const w of WIDTHS) {
      for (const q of MANY_QPS) {
        const r = await attempt(`${op} goodput ${w}b ${q} QPs`, () => measureManyQp(op, w, q));
        if (r) rs.push(r);
      }
    }
  }
  console.log(manyQpTable(rs));
  return rs;
}

/** The summary line of the many-QP part. */
function manyQpSummary(rs: readonly ManyQpResult[]): string {
  const met = rs.length === 2 * WIDTHS.length * MANY_QPS.length && rs.every(r => r.bus >= MANY_QP_GOAL && r.activeQps === r.qps);
  return `nic goodput with ${MANY_QPS.join(', ')} active QPs: ${rs.map(r => `${r.op} ${r.dataWidth}b/${r.qps}QP=${r.bus.toFixed(4)} (limit ${r.limit.toFixed(4)})`).join(' ')} goal>=${MANY_QP_GOAL}: ${mark(met)}`;
}

/** The summary line of the loss part. */
function gbnSummary(gbn: readonly GbnResult[]): string {
  const lossy = gbn.filter(r => r.loss > 0);
  const judged = lossy.length > 0 ? `goal>=${GBN_GOAL} x bound: ${mark(lossy.every(r => r.goodput >= GBN_GOAL * r.bound.bound))}` : 'goal not judged: no lossy point ran';
  return `nic goodput under loss vs go-back-N bound: ${gbn.map(r => `${r.dataWidth}b/${r.qps}QP/${pct(r.loss)}=${r.goodput.toFixed(4)} (bound ${r.bound.bound.toFixed(4)})`).join(' ')} ${judged}`;
}

async function main(): Promise<void> {
  console.log(`seed ${benchSeed()}${quick ? ', quick run' : ''}`);
  console.log(`\n-- WRITE goodput: ${plan.messages} x 64 KiB, path MTU 4096, one QP A->B, memory latency 0, no back-pressure`);
  console.log('   bus = payload bytes per cycle / (DATA_WIDTH/8) on A\'s TX stream, steady state (messages 2.., from the end of message 1)');
  console.log(`   limit = ${LIMIT_FORMULA}`);
  const goodput: GoodputResult[] = [];
  for (const w of WIDTHS) {
    const r = await attempt(`goodput ${w}b`, () => measureGoodput(w, plan.messages));
    if (r) goodput.push(r);
  }
  console.log(goodputTable(goodput));

  console.log(`\n-- WRITE goodput at a host memory latency of ${HOST_LATENCIES.join(' and ')} cycles (both NICs' memories; otherwise as above; no goal)`);
  const slowHost: GoodputResult[] = [];
  for (const w of WIDTHS) {
    for (const L of HOST_LATENCIES) {
      const r = await attempt(`goodput ${w}b latency ${L}`, () => measureGoodput(w, plan.messages, L));
      if (r) slowHost.push(r);
    }
  }
  console.log(slowHost.map(r => `  ${String(r.dataWidth).padStart(5)}b  latency ${String(r.ramLatency).padStart(3)}: bus ${r.bus.toFixed(4)} (limit ${r.limit.toFixed(4)})`).join('\n'));

  console.log(`\n-- latency of a 64-byte WRITE (cycles from the doorbell; warm = median of ${plan.latencyWrites - 1}, cold = the first), link latency ${LINK_LATENCY} each way`);
  const latency: LatencyResult[] = [];
  for (const w of WIDTHS) {
    for (const L of MEM_LATENCIES) {
      const r = await attempt(`latency ${w}b L=${L}`, () => measureLatency(w, L, plan.latencyWrites));
      if (r) latency.push(r);
    }
  }
  console.log(latencyTable(latency));

  console.log(`\n-- READ goodput: ${READ_COUNT} x 64 KiB READs by A from B, path MTU 4096, memory latency 0, no back-pressure`);
  console.log('   bus = READ RESPONSE payload bytes per cycle / (DATA_WIDTH/8) on B\'s TX, steady state (READs 2.., from the end of READ 1)');
  console.log(`   limit = ${READ_LIMIT_FORMULA}`);
  console.log('   1 QP: no fences; the requester keeps at most 2 READs outstanding per QP (the responder\'s limit);');
  console.log('   4 QPs: round robin, 2 READs each, no fences');
  const readGoodput: ReadGoodputResult[] = [];
  for (const qps of [1, 4]) {
    for (const w of WIDTHS) {
      const r = await attempt(`read goodput ${w}b ${qps} QP`, () => measureReadGoodput(w, READ_COUNT, qps));
      if (r) readGoodput.push(r);
    }
  }
  console.log(readGoodputTable(readGoodput));

  console.log(`\n-- latency of a 64-byte READ (cycles from the doorbell; warm = median of ${plan.latencyWrites - 1}, cold = the first), link latency ${LINK_LATENCY} each way`);
  const readLatency: ReadLatencyResult[] = [];
  for (const w of WIDTHS) {
    for (const L of MEM_LATENCIES) {
      const r = await attempt(`read latency ${w}b L=${L}`, () => measureReadLatency(w, L, plan.latencyWrites));
      if (r) readLatency.push(r);
    }
  }
  console.log(readLatencyTable(readLatency));

  console.log('\n-- TLB hit rate, 1 MiB sequential WRITE (16 x 64 KiB, 256 pages each side)');
  const tlb: TlbResult[] = [];
  for (const w of WIDTHS) {
    const r = await attempt(`tlb ${w}b`, () => measureTlb(w));
    if (r) tlb.push(r);
  }
  console.log(tlbTable(tlb));

  const { gbn } = await lossSection();
  const manyQp = await manyQpSection();

  console.log(`\n-- simulation speed (best of ${plan.speedRounds}): the goodput run (TS testbench, everything live; traffic = first WQE posted to last CQE,`);
  console.log('   whole = reset, driver init, MR/QP setup and traffic) vs');
  console.log('   the same nic_pair model clocked idle (readies high, no traffic) by a C++ loop and by TS with one step(1) call a cycle');
  // The machine is shared: the three are interleaved over rounds and each keeps its best
  // rate, so load hits all of them alike (the first bench round is the goodput run above).
  const speed: { w: number; ts: Rate; whole: Rate; step: Rate; cpp: Rate }[] = [];
  const rateOf = (s: Span): Rate => ({ wall: s.cycles / s.seconds, cpu: s.cycles / s.cpuSeconds });
  const none: Rate = { wall: 0, cpu: 0 };
  for (const g of goodput) {
    // Wider buses rerun with more messages (speedMessages): the goodput run above counts as a
    // round only where it has the same count.
    const count = speedMessages(g.dataWidth, plan.messages), reused = count === plan.messages;
    let ts = reused ? rateOf(g.traffic) : none, whole = reused ? rateOf(g.whole) : none, step = none, cpp = none;
    for (let r = 0; r < plan.speedRounds; r++) {
      cpp = bestRate(cpp, await attempt(`c++ loop ${g.dataWidth}b`, () => cppPairRate(g.dataWidth, plan.loopCycles)) ?? none);
      step = bestRate(step, await attempt(`ts step loop ${g.dataWidth}b`, () => tsStepRate(g.dataWidth, plan.loopCycles)) ?? none);
      const b = r === 0 && reused ? undefined : await attempt(`bench rerun ${g.dataWidth}b`, () => measureGoodput(g.dataWidth, count));
      if (b) { ts = bestRate(ts, rateOf(b.traffic)); whole = bestRate(whole, rateOf(b.whole)); }
    }
    if (cpp.wall > 0 && step.wall > 0) speed.push({ w: g.dataWidth, ts, whole, step, cpp });
  }
  const k = (x: number): string => `${(x / 1e3).toFixed(1)} k`;
  console.log('  cycles/s  clock   bench traffic  bench whole   ts step(1) idle  c++ loop idle   traffic/c++  whole/c++  step/c++');
  const ratio = (a: number, b: number): string => (a / b).toFixed(3).padStart(9);
  for (const s of speed) {
    for (const c of ['wall', 'cpu'] as const) {
      console.log(`  ${String(s.w).padStart(5)}b    ${c.padEnd(4)}  ${k(s.ts[c]).padStart(10)}   ${k(s.whole[c]).padStart(10)}    ${k(s.step[c]).padStart(10)}     ${k(s.cpp[c]).padStart(10)}    ${ratio(s.ts[c], s.cpp[c])}  ${ratio(s.whole[c], s.cpp[c])}  ${ratio(s.step[c], s.cpp[c])}`);
    }
  }

  console.log('');
  const gMet = goodput.length === WIDTHS.length && goodput.every(r => r.bus >= GOODPUT_GOAL);
  console.log(`nic goodput: ${goodput.map(r => `${r.dataWidth}b=${r.bus.toFixed(4)} (limit ${r.limit.toFixed(4)})`).join(' ')} goal>=${GOODPUT_GOAL}: ${mark(gMet)}`);
  console.log(`nic goodput on a slow host (no goal): ${slowHost.map(r => `${r.dataWidth}b/L=${r.ramLatency}=${r.bus.toFixed(4)}`).join(' ')}`);
  const lMet = latency.length === WIDTHS.length * MEM_LATENCIES.length && latency.every(r => r.warm.firstBeat <= latencyGoal(r.memLatency));
  console.log(`nic latency first beat: ${latency.map(r => `${r.dataWidth}b/L=${r.memLatency}=${r.warm.firstBeat} (goal ${latencyGoal(r.memLatency)})`).join(' ')}: ${mark(lMet)}`);
  console.log(`nic latency last beat / CQE (no goal): ${latency.map(r => `${r.dataWidth}b/L=${r.memLatency}=${r.warm.lastBeat}/${r.warm.cqe}`).join(' ')}`);
  const oneQp = readGoodput.filter(r => r.qps === 1), fourQp = readGoodput.filter(r => r.qps === 4);
  const rMet = oneQp.length === WIDTHS.length && oneQp.every(r => r.bus >= READ_GOODPUT_GOAL);
  const rg = (rs: readonly ReadGoodputResult[]): string => rs.map(r => `${r.dataWidth}b=${r.bus.toFixed(4)} (limit ${r.limit.toFixed(4)})`).join(' ');
  console.log(`nic read goodput (1 QP): ${rg(oneQp)} goal>=${READ_GOODPUT_GOAL}: ${mark(rMet)}`);
  console.log(`nic read goodput (4 QPs; no goal): ${rg(fourQp)}${fourQp.length < WIDTHS.length ? ' (a run failed, see above)' : ''}`);
  console.log(`nic read latency doorbell->CQE (no goal): ${readLatency.map(r => `${r.dataWidth}b/L=${r.memLatency}=${r.warm} (cold ${r.cold})`).join(' ')}`);
  const tMet = tlb.length === WIDTHS.length && tlb.every(r => Math.min(hitRate(r.a), hitRate(r.b)) >= TLB_GOAL);
  console.log(`nic tlb hit rate: ${tlb.map(r => `${r.dataWidth}b A=${pct(hitRate(r.a))} B=${pct(hitRate(r.b))}`).join(' ')} goal>=${pct(TLB_GOAL)}: ${mark(tMet)}`);
  console.log(gbnSummary(gbn));
  console.log(manyQpSummary(manyQp));
  const sMet = speed.length === WIDTHS.length && speed.every(s => simspeedMet(s.ts, s.cpp));
  console.log(`nic simspeed bench traffic/c++ idle (cpu time, wall): ${speed.map(s => `${s.w}b=${(s.ts.cpu / s.cpp.cpu).toFixed(3)},${(s.ts.wall / s.cpp.wall).toFixed(3)} (${(s.ts.cpu / 1e3).toFixed(1)}k/${(s.cpp.cpu / 1e3).toFixed(1)}k cycles per cpu s)`).join(' ')} goal cpu>=${SIMSPEED_GOAL} (best of ${plan.speedRounds}): ${mark(sMet)}`);
  if (failures.length) {
    console.log(`nic benches that did not run to the end: ${failures.join(', ')}`);
    process.exitCode = 1;
  }
}

/** `--gbn`: the loss part alone, with its summary line. */
async function gbnOnly(): Promise<void> {
  console.log(`seed ${benchSeed()}${quick ? ', quick run' : ''}`);
  const { gbn } = await lossSection();
  console.log(gbnSummary(gbn));
  if (failures.length) {
    console.log(`nic benches that did not run to the end: ${failures.join(', ')}`);
    process.exitCode = 1;
  }
}

/** `--many-qp`: the many-QP part alone, with its summary line. */
async function manyQpOnly(): Promise<void> {
  console.log(`seed ${benchSeed()}`);
  console.log(manyQpSummary(await manyQpSection()));
  if (failures.length) {
    console.log(`nic benches that did not run to the end: ${failures.join(', ')}`);
    process.exitCode = 1;
  }
}

await (process.argv.includes('--gbn') ? gbnOnly() : process.argv.includes('--many-qp') ? manyQpOnly() : main());
