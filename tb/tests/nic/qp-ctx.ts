// A QP context record (gen/nic/ctx.ts QpCtx) with every field 0, for stage tests that drive
// a module's qp_ctx input: spread it and set the fields the stage reads.

import { QpCtx } from '../../../gen/nic/ctx.ts';

export function emptyQpCtx(): Record<string, number> {
  return Object.fromEntries(QpCtx.fields.map(f => [f.name, 0]));
}
