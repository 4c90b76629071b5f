// Hostile frames into a live NIC (B of a nic_pair): a seeded generator (tb/model/hostile-
// frames.ts) injects frames on the link's a->b direction while real WRITE/READ traffic runs
// both ways on QPs 0 and 1, and on after it has finished ("alone"). Afterwards:
//  - nothing hangs: the real traffic completed (its scoreboard: every byte, every CQE in
//    order, nothing else changed on either host), B's receive counters account for every
//    delivered frame within a bounded time, and B stops sending;
//  - counters: RX_DROP_ICRC and RX_FRAMES equal what the frames must do (tb/model/rx-fate.ts);
//    RX_DROP_OTHER at least the malformed ones and those to unknown QPs, at most those plus
//    the parsed ones; the same on A for what B sent it;
//  - every QP is RTS or ERROR (a hostile frame may legitimately move a target QP to ERROR;
//    live QPs stay RTS; nothing is left in RESET, INIT or RTR);
//  - host memory changed only where the real traffic wrote, in rings, and on B where a
//    delivered WRITE's rkey granted remote write on that range; A not at all otherwise;
//  - every READ RESPONSE B sent answers a READ REQUEST a correct NIC grants, with the right
//    lengths, and bytes equal to the MR's where the MR cannot change (tb/model/read-audit.ts).
// The invariants hold with or without retransmission in the requester: live QPs only get
// frames a correct NIC must ignore or answer without effect (see hostile-frames.ts).

import { QP_STATE } from '../../gen/nic/regmap.ts';
import type { TestBench } from '../core/index.ts';
import type { ByteRange, MemorySnapshot } from '../model/host-memory.ts';
import { HostileFrames } from '../model/hostile-frames.ts';
import type { PairEnv } from './env.ts';
import type { FuzzProbe, RxExpectation } from './fuzz-probe.ts';
import { fuzzWorld, LIVE_QPS, refreshWorld, reviveTargets, setupFuzzTargets, TARGET_QPS, type FuzzTargets } from './fuzz-targets.ts';
import { runMixedScenario, type MixedScenarioResult } from './mixed-scenario.ts';

export interface FuzzOptions {
  /** Hostile frames to inject. */
  readonly frames: number;
  /** Real WRITEs/READs on QPs 0 and 1, both directions (0: the fuzzer alone). */
  readonly realWqes: number;
  /** Largest real message (default 16 KiB). */
  readonly realMaxLen?: number;
  /** Reset and reconnect target QPs a frame moved to ERROR (default true). */
  readonly revive?: boolean;
  /** Called every 256 frames with the number sent. */
  readonly progress?: (framesSent: number) => void;
  /** Called with every injected frame (NICGEN_VERBOSE in the bench). */
  readonly log?: (line: string) => void;
}

export interface FuzzResult {
  /** Hostile frames injected, by kind of generator. */
  readonly frames: number;
  readonly byKind: ReadonlyMap<string, number>;
  /** What B's receive path had to do with every frame delivered to it. */
  readonly rxB: RxExpectation;
  readonly naks: ReadonlyMap<number, number>;
  readonly revived: number;
  readonly readResponses: number;
  readonly readBytesCompared: number;
  readonly grantedBytes: number;
  readonly real: MixedScenarioResult | undefined;
  /** Hostile frames sent while the real traffic still ran (the rest went in alone). */
  readonly interleaved: number;
  readonly cycles: number;
}

/** The last injected frames, for failure messages. */
class Recent {
  readonly #items: string[] = [];
  add(s: string): void { this.#items.push(s); if (this.#items.length > 8) this.#items.shift(); }
  toString(): string { return this.#items.map(s => `\n    ${s}`).join(''); }
}

export async function runFuzzScenario(env: PairEnv, tb: TestBench, probe: FuzzProbe, o: FuzzOptions): Promise<FuzzResult> {
  const t0 = tb.cycle;
  probe.attach(env.a, env.b);
  const targets = await setupFuzzTargets(env, tb);
  const world = fuzzWorld(env, o.realWqes > 0);
  const gen = new HostileFrames(tb.rng.fork(), world);
  const recent = new Recent();
  let snaps: { A: MemorySnapshot; B: MemorySnapshot } | undefined;
  let sent = 0;
  const withContext = (e: unknown): Error => new Error(`${(e as Error).message}\n  hostile frames sent: ${sent}; the last ones:${recent}`, { cause: e });
  const fuzz = async (): Promise<void> => {
    try { await inject(); } catch (e) { throw withContext(e); }
  };
  const inject = async (): Promise<void> => {
    await refreshWorld(env, targets, world);
    while (sent < o.frames) {
      if (sent % 16 === 0) {
        if (o.revive ?? true) await reviveTargets(env, tb, targets);
        await refreshWorld(env, targets, world);
      }
      for (const f of gen.next()) {
        await tb.until(() => env.link.inFlight('a->b') < 2, { timeout: 500_000, what: 'room for a hostile frame on the link a->b' });
        env.link.inject('a->b', f.data);
        recent.add(`#${sent} ${f.what}`);
        o.log?.(`cycle ${tb.cycle}: #${sent} ${f.what}`);
        if (++sent % 256 === 0) o.progress?.(sent);
        probe.check();
        await tb.clockCycles(pickGap(tb));
      }
    }
  };
  const start = (): void => {
    snaps = { A: env.a.mem.snapshot(), B: env.b.mem.snapshot() };
    // The real traffic's scoreboard judges its own bytes; the fuzzer's ranges are judged below.
    env.sb.allow('B', [targets.mrs.fw, targets.mrs.fo, ...env.b.drv.mrs.filter(m => m && m.pd === 0x33)].flatMap(m => m!.ranges(0, m!.len)));
    env.sb.allow('B', targets.rings.B);
    env.sb.allow('A', targets.rings.A);
  };
  let real: MixedScenarioResult | undefined;
  let interleaved = 0;
  try {
    if (o.realWqes > 0) {
      let task: { join(): Promise<void> } | undefined;
      real = await runMixedScenario(env, tb, {
        wqes: o.realWqes, qps: LIVE_QPS.length, maxLen: o.realMaxLen ?? 16 * 1024, bothDirections: true, lossy: true,
        onStart: () => { start(); task = tb.fork(fuzz, 'hostile frames'); },
      });
      interleaved = sent;
      await task!.join();
    } else {
      start();
      await fuzz();
    }
    probe.check();
    await settle(env, tb, probe);
    await checkEnd(env, probe, targets, snaps!, o.realWqes > 0);
  } catch (e) {
    throw (e as Error).message.includes('hostile frames sent:') ? e : withContext(e);
  } finally {
    snaps?.A.release(); snaps?.B.release();
  }
  return {
    frames: sent, byKind: gen.counts, rxB: probe.rx.B, naks: probe.naks, revived: targets.revived,
    readResponses: probe.audit.packets, readBytesCompared: probe.audit.bytesCompared,
    grantedBytes: probe.granted.reduce((a, r) => a + r.len, 0), real, interleaved, cycles: tb.cycle - t0,
  };
}

/** Idle cycles before the next hostile frame: mostly short, sometimes none (back to back
 *  behind the frames in flight), sometimes long enough for the NIC to drain. */
function pickGap(tb: TestBench): number {
  const r = tb.rng.float();
  return r < 0.25 ? 1 : r < 0.9 ? tb.rng.int(1, 48) : tb.rng.int(100, 600);
}

/** Waits until B's counters account for every delivered frame and B has stopped sending. */
async function settle(env: PairEnv, tb: TestBench, probe: FuzzProbe): Promise<void> {
  await tb.until(() => env.link.inFlight('a->b') === 0 && env.link.inFlight('b->a') === 0, { timeout: 200_000, what: 'the link to drain' });
  const x = probe.rx.B, b = env.b.drv;
  const deadline = tb.cycle + 300_000;
  for (;;) {
    const frames = await b.counter('RX_FRAMES'), icrc = await b.counter('RX_DROP_ICRC');
    if (frames === x.parsed && icrc === x.icrc) break;
    if (frames > x.parsed || icrc > x.icrc || tb.cycle > deadline) {
      throw new Error(`B's receive counters do not account for the ${x.delivered} frames delivered to it${tb.cycle > deadline ? ' after 300000 cycles' : ''}: `
        + `RX_FRAMES ${frames} (expected ${x.parsed}), RX_DROP_ICRC ${icrc} (expected ${x.icrc}), RX_DROP_OTHER ${await b.counter('RX_DROP_OTHER')} (${x.malformed} malformed, ${x.unknownQp} to unknown QPs)`);
    }
    await tb.clockCycles(256);
  }
  // B answers the last frames (ACKs, NAKs, READ responses): wait until it has been quiet a while.
  let last = env.link.stats['b->a'].frames, at = tb.cycle;
  const quiet = tb.cycle + 500_000;
  while (tb.cycle - at < 5_000) {
    if (tb.cycle > quiet) throw new Error(`B is still sending ${tb.cycle - at} cycles after its last received frame (${env.link.stats['b->a'].frames} frames)`);
    await tb.clockCycles(500);
    const now = env.link.stats['b->a'].frames;
    if (now !== last) { last = now; at = tb.cycle; }
  }
  probe.check();
}

async function checkCounters(env: PairEnv, probe: FuzzProbe): Promise<void> {
  for (const h of [env.a, env.b]) {
    const x = probe.rx[h.name];
    const got = { frames: await h.drv.counter('RX_FRAMES'), icrc: await h.drv.counter('RX_DROP_ICRC'), other: await h.drv.counter('RX_DROP_OTHER') };
    const at = `${h.name}: ${x.delivered} frames delivered (${x.parsed} parse, ${x.icrc} bad ICRC, ${x.malformed} malformed, ${x.unknownQp} to unknown QPs)`;
    if (got.frames !== x.parsed) throw new Error(`${at}: RX_FRAMES ${got.frames}`);
    if (got.icrc !== x.icrc) throw new Error(`${at}: RX_DROP_ICRC ${got.icrc}`);
    if (got.other < x.malformed + x.unknownQp || got.other > x.malformed + x.parsed) {
      throw new Error(`${at}: RX_DROP_OTHER ${got.other}, expected ${x.malformed + x.unknownQp}..${x.malformed + x.parsed}`);
    }
  }
}

async function checkQpStates(env: PairEnv, realRan: boolean): Promise<void> {
  const name = (s: number): string => Object.entries(QP_STATE).find(([, v]) => v === s)?.[0] ?? `state ${s}`;
  for (const h of [env.a, env.b]) {
    for (const i of [...(realRan ? LIVE_QPS : []), ...TARGET_QPS]) {
      const qp = h.drv.qps[i]!;
      const st = await h.drv.qpState(qp);
      const live = (LIVE_QPS as readonly number[]).includes(i);
      const ok = live ? st === QP_STATE.RTS : st === QP_STATE.RTS || st === QP_STATE.ERROR;
      if (!ok) throw new Error(`${h.name} QP ${i} (${live ? 'live' : 'target'}) ends in ${name(st)}, expected ${live ? 'RTS' : 'RTS or ERROR'}`);
    }
  }
}

function checkMemory(env: PairEnv, probe: FuzzProbe, t: FuzzTargets, snaps: { A: MemorySnapshot; B: MemorySnapshot }, realRan: boolean): void {
  for (const h of [env.a, env.b]) {
    const rings = h.drv.qps.flatMap(q => q?.ringRanges ?? []);
    const allowed: ByteRange[] = [...(realRan ? env.sb.plannedRanges(h.name) : []), ...rings, ...t.rings[h.name], ...(h === env.b ? probe.granted : [])];
    const c = snaps[h.name].firstChangeOutside(allowed);
    if (c) {
      throw new Error(`${h.name} host memory changed at 0x${c.addr.toString(16)} (0x${c.before.toString(16)} -> 0x${c.after.toString(16)}), outside the real traffic's ranges, the rings`
        + `${h === env.b ? ' and every range a delivered WRITE\'s rkey granted' : ''}\n${c.dump}`);
    }
  }
}

async function checkEnd(env: PairEnv, probe: FuzzProbe, t: FuzzTargets, snaps: { A: MemorySnapshot; B: MemorySnapshot }, realRan: boolean): Promise<void> {
  await checkCounters(env, probe);
  await checkQpStates(env, realRan);
  checkMemory(env, probe, t, snaps, realRan);
}
