// Two NICs (nic_pair) with everything a host has: host memory behind an AXI4 RAM model (random
// latency and back-pressure), a register master, a driver, and the Ethernet link between
// them. Used by the end-to-end benches and tests. When the run collects coverage, the NIC's
// functional coverage (tb/coverage/) watches the scoreboard and the link.

import type { IOOf } from '../../gen/hdl/index.ts';
import type { nicPair } from '../../gen/nic/nic-top.ts';
import { AxiLiteMaster, AxiRam, type Latency, type Pause } from '../bfm/index.ts';
import type { ClockHandle, DutOf, InputHandle, TestBench } from '../core/index.ts';
import { NicDriver } from '../model/driver.ts';
import { HostMemory } from '../model/host-memory.ts';
import { PageAllocator } from '../model/page-allocator.ts';
import type { PcapWriter } from '../model/pcap.ts';
import { RdmaScoreboard } from '../model/scoreboard.ts';
import { NicCoverage } from '../coverage/nic-collector.ts';
import { EthernetLink, type LinkFrame, type LinkOptions } from './link.ts';

/** The NIC's loss-recovery counters (gen/nic/regmap.ts, docs/nic-reliability.md). */
export const RECOVERY_COUNTERS = ['RETX_PKTS', 'ACK_TIMEOUTS', 'SEQ_NAK_TX', 'SEQ_NAK_RX', 'DUP_REQ_RX', 'RETRY_EXC'] as const;

export type PairDut = DutOf<NonNullable<IOOf<typeof nicPair>>>;

/** nic_pair with macClock 'separate': the Ethernet ports on mac_clk / mac_rst. */
type TwoClockPair = PairDut & { readonly mac_clk: ClockHandle; readonly mac_rst: InputHandle<number>; readonly clk: ClockHandle };

function twoClocks(dut: PairDut): dut is TwoClockPair {
  return 'mac_clk' in dut;
}

export const PAIR_PARAMS = { numQp: 4, numMr: 16 } as const;
export interface PairParams { readonly numQp: number; readonly numMr: number }

export interface PairEnvOptions {
  /** Link latency in cycles (default 20). */
  readonly latency?: number;
  readonly pcap?: PcapWriter;
  /** AXI RAM latency per request (default 2..12 cycles). */
  readonly ramLatency?: Latency;
  /** AXI RAM ready-low probability (default 0.2). */
  readonly backpressure?: Pause;
  /** AXI RAM idle cycles before response beats (default 0.1). */
  readonly stall?: Pause;
  /** AXI RAM interleaves the R beats of bursts with different ids (default false). */
  readonly interleave?: boolean;
  readonly link?: Omit<LinkOptions, 'latency' | 'pcap'>;
  /** Both drivers' default RETRY register for new QPs (NicDriverOptions.qpRetry). */
  readonly qpRetry?: number;
  /** nic_pair's QP and MR counts, as the design was built (default PAIR_PARAMS). */
  readonly params?: PairParams;
  /** Where the drivers put MRs (NicDriverOptions.mrSlots; default the lowest free slot). */
  readonly mrSlots?: 'lowest' | 'random';
}

export interface Host {
  readonly name: 'A' | 'B';
  readonly mem: HostMemory;
  readonly ram: AxiRam;
  readonly axil: AxiLiteMaster;
  readonly drv: NicDriver;
}

export class PairEnv {
  readonly a: Host;
  readonly b: Host;
  readonly link: EthernetLink;
  readonly sb = new RdmaScoreboard();
  /** The NIC's functional coverage, when the run collects coverage. */
  readonly coverage: NicCoverage | undefined;
  /** The testbench given to create(). */
  readonly tb: TestBench;
  /** The clock of the host side (memory, registers): scenarios wait in its cycles
   *  (`env.clock.cycles(16)`), which with the MAC on a clock of its own are not ticks. */
  readonly clock: ClockHandle;

  private constructor(a: Host, b: Host, link: EthernetLink, coverage: NicCoverage | undefined, tb: TestBench, clock: ClockHandle) {
    this.a = a; this.b = b; this.link = link; this.coverage = coverage; this.tb = tb; this.clock = clock;
    this.sb.addHost('A', a.mem);
    this.sb.addHost('B', b.mem);
  }

  peer(h: Host): Host { return h === this.a ? this.b : this.a; }

  /** Bins both NICs' recovery counters (RETX_PKTS ... RETRY_EXC) in the functional coverage;
   *  nothing (no register read) when the run collects none. Called after the last CQE. */
  async coverRecovery(): Promise<void> {
    if (!this.coverage) return;
    for (const h of [this.a, this.b]) {
      const c: Record<string, number> = {};
      for (const n of RECOVERY_COUNTERS) c[n] = await h.drv.counter(n); // one AXI-Lite access at a time
      this.coverage.recovery(h.name === 'A' ? 'A' : 'B', c);
    }
  }

  /** Builds the models, resets the pair and initialises both NICs. */
  static async create(dut: PairDut, tb: TestBench, o: PairEnvOptions = {}): Promise<PairEnv> {
    // Two clocks: host memory and registers on clk, the link on mac_clk (each model its clock option).
    const two = twoClocks(dut);
    const hostClock = two ? { clock: dut.clk } : {};
    const clock: ClockHandle = two ? dut.clk : tb.clock(tb.model.layout.clock!.name);
    const host = (name: 'A' | 'B', index: number): Host => {
      const mem = new HostMemory();
      const x = name === 'A' ? { axi: dut.a_m_axi, axil: dut.a_s_axil } : { axi: dut.b_m_axi, axil: dut.b_s_axil };
      const ram = new AxiRam(tb, x.axi, {
        name: `${name}.m_axi`, memory: mem,
        readLatency: o.ramLatency ?? { fixed: 2, random: 10 }, writeLatency: o.ramLatency ?? { fixed: 2, random: 10 },
        backpressure: o.backpressure ?? 0.2, stall: o.stall ?? 0.1, interleave: o.interleave ?? false, ...hostClock,
      });
      const axil = new AxiLiteMaster(tb, x.axil, { name: `${name}.s_axil`, ...hostClock });
      // Host memory pages in a 64 MiB pool at 4 GiB: scattered, and above 32-bit addresses.
      const alloc = new PageAllocator({ base: 0x1_0000_0000n + BigInt(index) * 0x1000_0000n, pages: 16384, rng: tb.rng.fork() });
      const drv = new NicDriver({
        name, regs: axil, mem, alloc, rng: tb.rng.fork(), ...(o.params ?? PAIR_PARAMS), ...(o.qpRetry === undefined ? {} : { qpRetry: o.qpRetry }),
        ...(o.mrSlots ? { mrSlots: o.mrSlots } : {}),
        mac: 0x02_00_00_00_00_00n | BigInt(0xa + index), ip: (0x0a_00_00_01 + index) >>> 0,
      });
      return { name, mem, ram, axil, drv };
    };
    const a = host('A', 0), b = host('B', 1);
    const cov = tb.coverage
      ? new NicCoverage(tb.coverage, (h, qp) => (h === 'A' ? a : h === 'B' ? b : undefined)?.drv.qps[qp]?.opts.pmtuLog2)
      : undefined;
    const observe = o.link?.observe;
    const link = new EthernetLink(tb, { tx: dut.a_m_axis_tx, rx: dut.a_s_axis_rx }, { tx: dut.b_m_axis_tx, rx: dut.b_s_axis_rx }, {
      latency: o.latency ?? 20, ...(o.pcap ? { pcap: o.pcap } : {}), ...(two ? { clock: dut.mac_clk } : {}), ...o.link,
      ...(cov ? { observe: (f: LinkFrame) => { cov.frame(f.dir, f.data); observe?.(f); } } : {}),
    });
    await resetPair(dut, tb);
    await a.drv.init({ ttl: 64, dscp: 26 });
    await b.drv.init({ ttl: 64, dscp: 26 });
    const env = new PairEnv(a, b, link, cov, tb, clock);
    cov?.watchFaults(d => link.faults?.stats(d));
    // Records are dated, so a mismatch's wave window starts where its WQE was posted.
    env.sb.now = () => tb.cycle;
    if (cov) env.sb.observe(cov);
    return env;
  }
}

/** Both NICs' resets; with a MAC clock, rst and mac_rst together for 4 edges of each clock
 *  (the dual-clock FIFOs want both asserted at once for stages + 1 edges of the slower). */
async function resetPair(dut: PairDut, tb: TestBench): Promise<void> {
  if (!twoClocks(dut)) { await tb.reset(4); return; }
  const resets = [dut.rst, dut.mac_rst];
  for (const r of resets) r.value = 1;
  for (const c of [dut.clk, dut.mac_clk]) await c.cycles(4);
  for (const r of resets) r.value = 0;
}
