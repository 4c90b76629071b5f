// AXI4-Lite master (cocotbext-axi's AxiLiteMaster): register reads and writes into a DUT's
// `s_axil_*` port, with random delays on every valid and on the response readies.
//
//   const regs = new AxiLiteMaster(tb, dut.s_axil, { pause: 0.3 });
//   await regs.write(0x10, 0xcafe);
//   const v = await regs.read(0x10);
//   await regs.read(0x400, { expect: 'SLVERR' });   // an error the test wants
//
// A response other than the expected one (OKAY by default) throws a BusResponseError.
// Values are 32-bit words; on a 64-bit bus the word goes to the lanes its address selects.
// Calls from several coroutines may overlap: AXI4-Lite answers in order, so they queue.

import type { ClockHandle, TestBench } from '../core/index.ts';
import { AxiLiteChecker } from './axil-checker.ts';
import { ChannelDriver } from './channel-driver.ts';
import { ChannelReceiver } from './channel-receiver.ts';
import { ClockPhases } from './clock-phases.ts';
import { NEVER, pauser, type Pause } from './pause.ts';
import { big, forPort, num, portWidth, wordOf, type AxiLiteSlavePorts } from './ports.ts';
import { BusResponseError } from './protocol-error.ts';

export const AXI_RESP = { OKAY: 0, EXOKAY: 1, SLVERR: 2, DECERR: 3 } as const;
export type AxiRespName = keyof typeof AXI_RESP;
const respNames = ['OKAY', 'EXOKAY', 'SLVERR', 'DECERR'] as const;

export interface AxiLiteMasterOptions {
  readonly name?: string;
  /** Idle cycles before each AW, W and AR valid (each channel drawn separately). */
  readonly pause?: Pause;
  /** BREADY/RREADY low with this probability per cycle. */
  readonly backpressure?: Pause;
  readonly check?: boolean;
  /** Cycles an access may take (default 10 000; ticks with several clocks). */
  readonly timeout?: number;
  /** The bus's clock (default: the testbench's; needed in a design with several). */
  readonly clock?: ClockHandle;
}

export interface AccessOptions {
  /** The response the test expects (default OKAY); any other throws. */
  readonly expect?: AxiRespName;
  readonly prot?: number;
}

interface Pending<T> { result: { value: T; resp: number; cycle: number } | undefined }

export class AxiLiteMaster {
  readonly name: string;
  readonly busBytes: number;
  readonly checker: AxiLiteChecker | null;
  readonly #tb: TestBench;
  readonly #timeout: number;
  readonly #aw: ChannelDriver<{ addr: bigint; prot: number }>;
  readonly #w: ChannelDriver<{ data: bigint; strb: number }>;
  readonly #ar: ChannelDriver<{ addr: bigint; prot: number }>;
  readonly #writes: Pending<null>[] = [];
  readonly #reads: Pending<bigint>[] = [];
  /** The last drive phase left AW, W and AR idle (valid low, nothing queued) and the response
   *  readies never pause: the next drive phase would write the same words again, so it is
   *  skipped until an access is queued (most cycles: registers are accessed now and then). */
  #driveIdle = false;

  constructor(tb: TestBench, ports: AxiLiteSlavePorts, options: AxiLiteMasterOptions = {}) {
    this.#tb = tb;
    this.name = options.name ?? ports.awaddr.name.replace(/_awaddr$/, '');
    const p = ports;
    const dataW = portWidth(tb, p.wdata), addrW = portWidth(tb, p.awaddr);
    this.busBytes = dataW / 8;
    this.#timeout = options.timeout ?? 10_000;
    const rng = tb.rng.fork();
    this.checker = options.check === false ? null : new AxiLiteChecker(tb, ports, this.name, options.clock ? { clock: options.clock } : {});
    const pause = (ch: string) => pauser(options.pause, rng, `${this.name} ${ch} pause`);
    const bp = (ch: string) => pauser(options.backpressure, rng, `${this.name} ${ch} backpressure`);
    this.#aw = new ChannelDriver({ valid: p.awvalid, ready: p.awready }, x => { p.awaddr.value = forPort(x.addr, addrW); p.awprot.value = x.prot; }, pause('AW'));
    this.#w = new ChannelDriver({ valid: p.wvalid, ready: p.wready }, x => { p.wdata.value = forPort(x.data, dataW); p.wstrb.value = x.strb; }, pause('W'));
    this.#ar = new ChannelDriver({ valid: p.arvalid, ready: p.arready }, x => { p.araddr.value = forPort(x.addr, addrW); p.arprot.value = x.prot; }, pause('AR'));
    const bPause = bp('B'), rPause = bp('R');
    const b = new ChannelReceiver({ valid: p.bvalid, ready: p.bready }, () => num(p.bresp.value), bPause);
    const r = new ChannelReceiver({ valid: p.rvalid, ready: p.rready }, () => ({ data: big(p.rdata.value), resp: num(p.rresp.value) }), rPause);
    // Readies that never pause are written high at every drive phase, with no random draw.
    const steadyReadies = bPause === NEVER && rPause === NEVER;
    const phases = ClockPhases.of(tb, options.clock);
    // Idle between register accesses (most cycles): nothing offered, no response on the bus.
    const bv = wordOf(p.bvalid), rv = wordOf(p.rvalid);
    phases.onSample(() => {
      if (bv !== null && rv !== null && bv[0] === 0 && rv[0] === 0 && !this.#aw.offering && !this.#w.offering && !this.#ar.offering) return;
      const cycle = tb.cycle;
      this.#aw.sample(cycle); this.#w.sample(cycle); this.#ar.sample(cycle);
      const resp = b.sample();
      // A response with nothing outstanding is the checker's to report; without it, ignore.
      if (resp !== undefined) { const w = this.#writes.shift(); if (w) w.result = { value: null, resp, cycle }; }
      const rd = r.sample();
      if (rd) { const x = this.#reads.shift(); if (x) x.result = { value: rd.data, resp: rd.resp, cycle }; }
    });
    phases.onDrive(() => {
      if (this.#driveIdle) return;
      this.#aw.drive(); this.#w.drive(); this.#ar.drive(); b.drive(); r.drive();
      this.#driveIdle = steadyReadies && this.#aw.pending === 0 && this.#w.pending === 0 && this.#ar.pending === 0;
    });
  }

  /** Byte lane of a 32-bit word at `addr` on this bus. */
  #lane(addr: number): number {
    if (addr % 4 !== 0) throw new RangeError(`${this.name}: address 0x${addr.toString(16)} is not 32-bit aligned`);
    return addr % this.busBytes;
  }

  async write(addr: number, value: number, strb = 0xf, options: AccessOptions = {}): Promise<void> {
    if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) throw new RangeError(`${this.name}: ${value} is not a 32-bit word`);
    const lane = this.#lane(addr);
    const op: Pending<null> = { result: undefined };
    this.#aw.push({ addr: BigInt(addr), prot: options.prot ?? 0 });
    this.#w.push({ data: BigInt(value) << BigInt(8 * lane), strb: (strb & 0xf) << lane });
    this.#writes.push(op);
    this.#driveIdle = false;
    await this.#tb.until(() => op.result !== undefined, { timeout: this.#timeout, what: `${this.name} write 0x${addr.toString(16)}` });
    this.#check(op.result!.resp, options.expect, op.result!.cycle, `write 0x${addr.toString(16)}`);
  }

  async read(addr: number, options: AccessOptions = {}): Promise<number> {
    const lane = this.#lane(addr);
    const op: Pending<bigint> = { result: undefined };
    this.#ar.push({ addr: BigInt(addr), prot: options.prot ?? 0 });
    this.#reads.push(op);
    this.#driveIdle = false;
    await this.#tb.until(() => op.result !== undefined, { timeout: this.#timeout, what: `${this.name} read 0x${addr.toString(16)}` });
    this.#check(op.result!.resp, options.expect, op.result!.cycle, `read 0x${addr.toString(16)}`);
    return Number((op.result!.value >> BigInt(8 * lane)) & 0xffffffffn);
  }

  #check(resp: number, expect: AxiRespName | undefined, cycle: number, what: string): void {
    const want = AXI_RESP[expect ?? 'OKAY'];
    if (resp !== want) throw new BusResponseError(this.name, cycle, `${what} got ${respNames[resp] ?? resp}, expected ${respNames[want]}`);
  }
}
