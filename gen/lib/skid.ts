// Skid buffer: a full-throughput register slice for a ready/valid stream.
//
// Both directions are cut: m_valid/m_data come from registers, and s_ready is the inverse
// of one register (skid_valid_reg), so there is no combinational path from m_ready to
// s_ready — the point of the block is to break long ready chains in a pipeline. Throughput
// is one transfer per cycle: when the output stalls, the one beat the source sent while it
// still saw s_ready high lands in the skid register and is passed on first afterwards.

import { Bool, defineModule, intIn, UInt } from '../hdl/index.ts';
import { stream } from './interfaces.ts';

export type SkidParams = {
  /** Payload bits. */
  width: number;
};

export const skidBuffer = defineModule('skid_buffer', { width: 8 } as SkidParams, (m, p) => {
  const { clk, rst } = m.clockAndReset();
  const bus = stream(UInt(p.width));
  const s = bus.sink(m, 's');
  const o = bus.source(m, 'm');

  const outValid = m.reg('m_valid_reg', Bool);
  // Payload registers need no reset: they are only read while their valid flag is set.
  const outData = m.reg('m_data_reg', UInt(p.width), { reset: null });
  const skidValid = m.reg('skid_valid_reg', Bool);
  const skidData = m.reg('skid_data_reg', UInt(p.width), { reset: null });

  // Ready only depends on whether the skid slot is free, never on m_ready this cycle.
  s.ready.set(skidValid.lnot());
  o.valid.set(outValid);
  o.data.set(outData);

  // The output register can take a beat when it is empty or being emptied this cycle.
  const outFree = m.let('out_free', o.ready.lor(outValid.lnot()));
  m.if(outFree, () => {
    // Drain the skid register first so beats stay in order; s_ready is low meanwhile.
    m.if(skidValid, () => {
      outValid.set(1);
      outData.set(skidData);
      skidValid.set(0);
    }).else(() => {
      outValid.set(s.valid);
      m.if(s.valid, () => outData.set(s.data));
    });
  }).else(() => {
    // Output stalled: a beat accepted now (s_ready was high) waits in the skid register.
    m.if(s.valid.land(skidValid.lnot()), () => {
      skidValid.set(1);
      skidData.set(s.data);
    });
  });

  return { clk, rst, s, m: o };
}, { doc: 'Skid buffer: registered ready/valid slice, one beat per cycle, no m_ready to s_ready path', params: { rules: { width: intIn(1, 65536) } } });
