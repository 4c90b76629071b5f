// A TestBench as seen by the bus models of one clock of a design with several (nic_pair with
// macClock 'separate': clk for host memory and registers, mac_clk for the Ethernet link).
//
// Why: AxiRam, AxiLiteMaster and the AXI-Stream models take their edges from
// ClockPhases.of(tb), which, in a design with several clocks, wants a clock those models have no
// option for. The view answers as the testbench of a one-clock design whose clock is `clock`:
// `model.multiClock` is false, and `everyEdge` / `rising` / `falling` / `clockCycles` follow
// that clock's edges (the coroutine loop ClockPhases runs for a clock of several). Everything
// else (fork, until, cycle in ticks, rng, reset, coverage) is the real testbench's. Each view is
// a distinct object, so ClockPhases keeps one hub per view: one per clock.

import type { ClockHandle, Task, TestBench } from '../core/index.ts';

const views = new WeakMap<TestBench, Map<string, TestBench>>();

/** The view of `tb` for models clocked by `clock` (the same object for the same clock). */
export function clockView(tb: TestBench, clock: ClockHandle): TestBench {
  let byName = views.get(tb);
  if (!byName) views.set(tb, byName = new Map());
  const known = byName.get(clock.name);
  if (known) return known;
  const model = new Proxy(tb.model, {
    get: (t, k) => (k === 'multiClock' ? false : bound(t, Reflect.get(t, k, t))),
  });
  const own: Record<string, unknown> = {
    model,
    everyEdge: (onFalling: () => void, onRising: () => void, name = `edges-${clock.name}`): Task<never> =>
      tb.fork(async () => {
        for (;;) {
          await clock.falling();
          onFalling();
          await clock.rising();
          onRising();
        }
      }, name),
    rising: () => clock.rising(),
    falling: () => clock.falling(),
    clockCycles: (n: number) => clock.cycles(n),
  };
  const view = new Proxy(tb, {
    get: (t, k) => (typeof k === 'string' && k in own ? own[k] : bound(t, Reflect.get(t, k, t))),
  });
  byName.set(clock.name, view);
  return view;
}

/** Methods keep their own object as `this` (private state lives there, not on the view). */
function bound(target: object, v: unknown): unknown {
  return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
}
