// Reference model for nic_completion: the CQE bytes (from regmap.ts CQE_FIELDS), the phase
// bit of ring index k, and the interrupt moderation rule, clock edge by clock edge.

import { CQE_BYTES, CQE_FIELDS, fieldOf } from '../../gen/nic/regmap.ts';

export interface CqeFields { qp: number; wrId: bigint; byteLen: number; opcode: number; status: number; syndrome: number }

/** Phase of the CQE written at free-running index `k` in a ring of 2^sizeLog2 entries. */
export function cqePhase(k: number, sizeLog2: number): number {
  return ((k >> sizeLog2) & 1) === 0 ? 1 : 0;
}

export function encodeCqe(c: CqeFields, phase: number): Uint8Array {
  const buf = new Uint8Array(CQE_BYTES);
  const put = (name: typeof CQE_FIELDS[number]['name'], v: bigint | number): void => {
    const f = fieldOf(CQE_FIELDS, name);
    let x = BigInt(v);
    for (let k = 0; k < f.size; k++) { buf[f.offset + k] = Number(x & 0xffn); x >>= 8n; }
  };
  put('wr_id', c.wrId); put('byte_len', c.byteLen); put('qp', c.qp); put('opcode', c.opcode);
  put('status', c.status); put('syndrome', c.syndrome); put('phase', phase);
  return buf;
}

/** IRQ_MOD moderation, one call per clock edge (see gen/nic/completion.ts). */
export class IrqModerator {
  private pending = 0;
  private timer = 0;
  constructor(private readonly irqMod: number) {}

  get count(): number {
    const c = this.irqMod & 0x3f;
    return c === 0 ? 1 : Math.min(c, 32);
  }
  get timeout(): number { return (this.irqMod >>> 16) & 0xffff; }

  /** `done`: a completion counted at this edge. Returns whether the event fires at this edge. */
  step(done: boolean): boolean {
    const next = this.pending + (done ? 1 : 0);
    const byCount = done && next >= this.count;
    const byTimer = this.pending > 0 && this.timeout !== 0 && this.timer + 1 >= this.timeout;
    if (byCount || byTimer) { this.pending = 0; this.timer = 0; return true; }
    this.timer = this.pending > 0 ? this.timer + 1 : 0;
    this.pending = next;
    return false;
  }
}
