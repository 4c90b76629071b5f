// Memories in the form Yosys and Vivado infer: one `reg [W-1:0] mem [0:D-1]`, writes in
// clocked blocks; registered reads (block RAM) in clocked blocks, asynchronous reads
// (distributed RAM, LUTRAM on a Xilinx part) as an `assign`.

import { callerLoc, DslError, type SourceLoc } from './errors.ts';
import type { Domain, Memory } from './ir.ts';
import type { Shape } from './shape.ts';
import { toValue, Value, type Operand } from './value.ts';
import type { ModuleBuilder } from './module.ts';

export interface MemoryOptions {
  /** Initial contents, word by word (missing words are 0). */
  init?: readonly (number | bigint)[];
  /** Clock domain of the write ports, and of the read ports that name none (default: the module's). */
  domain?: Domain;
}

let nextMemoryId = 1;

export class MemoryHandle<S extends Shape = Shape> {
  readonly mem: Memory;
  readonly #m: ModuleBuilder;
  readonly #domain: Domain;

  constructor(m: ModuleBuilder, name: string, shape: S, depth: number, opts: MemoryOptions, loc: SourceLoc) {
    if (!Number.isInteger(depth) || depth < 2) throw new DslError(`memory depth ${depth}`, 'a memory needs at least 2 words', loc);
    const init = opts.init ? opts.init.map((v, i) => {
      const b = BigInt(v);
      if (b < 0n || b >= 1n << BigInt(shape.width)) throw new DslError(`init word ${i} (${v}) does not fit in ${shape.width} bits`, 'mask the value to the word width', loc);
      return b;
    }) : null;
    if (init && init.length > depth) throw new DslError(`${init.length} init words for a memory of depth ${depth}`, 'give at most depth words', loc);
    this.mem = { id: nextMemoryId++, name, shape, depth, init, readPorts: [], writePorts: [], loc, crossing: null };
    this.#m = m;
    this.#domain = opts.domain ?? m.defaultDomain(loc);
    m.ir.memories.push(this.mem);
  }

  get addrWidth(): number { return Math.max(1, Math.ceil(Math.log2(this.mem.depth))); }

  /** Write `data` at `addr` on the clock edge (under the current conditions).
   *  `mask` enables lanes of `laneWidth` bits (e.g. byte enables with laneWidth 8). */
  write(addr: Value, data: Operand, mask?: { enable: Value; laneWidth: number }): void {
    const loc = callerLoc();
    this.#checkAddr(addr, loc);
    const d = toValue(data, this.mem.shape.width, false, loc);
    if (mask && mask.enable.width * mask.laneWidth !== this.mem.shape.width) {
      throw new DslError(`write mask of ${mask.enable.width} lanes × ${mask.laneWidth} bits does not cover the ${this.mem.shape.width}-bit word`, 'use one enable bit per lane', loc);
    }
    const port = this.#writePort(mask?.laneWidth ?? null, loc);
    this.#m.recordStmt({ kind: 'memwrite', mem: this.mem, port, addr: addr.expr, data: d.expr, mask: mask?.enable.expr ?? null, loc });
  }

  /** Registered read: the word at `addr` appears one clock later. With `enable`, the output
   *  holds while it is low. `domain`: the read port's clock domain, for a dual-clock RAM
   *  (declare the crossing with m.crossing(mem, 'why')). */
  read(addr: Value, opts: { enable?: Value; domain?: Domain } = {}): Value<S> {
    const loc = callerLoc();
    this.#checkAddr(addr, loc);
    const port = this.mem.readPorts.length;
    this.mem.readPorts.push({ addr: addr.expr, enable: opts.enable?.expr ?? null, domain: opts.domain ?? this.#domain, loc, async: false });
    return new Value<S>({ kind: 'memread', mem: this.mem, port, width: this.mem.shape.width, signed: this.mem.shape.kind === 'sint', loc }, this.mem.shape as S);
  }

  /** Asynchronous read: the word at `addr` in the same cycle (a combinational path from
   *  `addr`). Small memories read this way map to distributed RAM (LUTRAM) on Xilinx parts;
   *  block RAM cannot read asynchronously. */
  readAsync(addr: Value): Value<S> {
    const loc = callerLoc();
    this.#checkAddr(addr, loc);
    const port = this.mem.readPorts.length;
    this.mem.readPorts.push({ addr: addr.expr, enable: null, domain: this.#domain, loc, async: true });
    return new Value<S>({ kind: 'memread', mem: this.mem, port, width: this.mem.shape.width, signed: this.mem.shape.kind === 'sint', loc }, this.mem.shape as S);
  }

  #writePort(laneWidth: number | null, loc: SourceLoc): number {
    const existing = this.mem.writePorts.findIndex(p => p.laneWidth === laneWidth);
    if (existing >= 0) return existing;
    this.mem.writePorts.push({ domain: this.#domain, laneWidth, loc });
    return this.mem.writePorts.length - 1;
  }

  #checkAddr(addr: Value, loc: SourceLoc): void {
    if (addr.signed) throw new DslError('memory address is signed', 'use an unsigned address', loc);
    if (addr.width > this.addrWidth) throw new DslError(`address is ${addr.width} bits, memory ${this.mem.name} needs ${this.addrWidth}`, `truncate it: addr.trunc(${this.addrWidth})`, loc);
  }
}
