// Read-only and write-only halves of AXI4, for stages that only read (WQE fetch) or only
// write (completion) host memory. Port names are those of the full bundle (m_axi_ar*, ...),
// so an interconnect or a full-AXI4 memory model attaches by name.

import { Bundle } from '../lib/interfaces.ts';
import { axi4, type AxiParams, type Axi4Spec } from '../lib/interfaces.ts';

const READ_KEYS = ['arid', 'araddr', 'arlen', 'arsize', 'arburst', 'arlock', 'arcache', 'arprot', 'arvalid', 'arready',
  'rid', 'rdata', 'rresp', 'rlast', 'rvalid', 'rready'] as const;
const WRITE_KEYS = ['awid', 'awaddr', 'awlen', 'awsize', 'awburst', 'awlock', 'awcache', 'awprot', 'awvalid', 'awready',
  'wdata', 'wstrb', 'wlast', 'wvalid', 'wready', 'bid', 'bresp', 'bvalid', 'bready'] as const;

export type Axi4ReadSpec = Pick<Axi4Spec, typeof READ_KEYS[number]>;
export type Axi4WriteSpec = Pick<Axi4Spec, typeof WRITE_KEYS[number]>;

function pick<K extends keyof Axi4Spec>(spec: Axi4Spec, keys: readonly K[]): Pick<Axi4Spec, K> {
  const out: Partial<Axi4Spec> = {};
  for (const k of keys) (out as Record<string, unknown>)[k] = spec[k];
  return out as Pick<Axi4Spec, K>;
}

export function axi4Read(p: AxiParams): Bundle<Axi4ReadSpec> { return new Bundle(pick(axi4(p).spec, READ_KEYS)); }
export function axi4Write(p: AxiParams): Bundle<Axi4WriteSpec> { return new Bundle(pick(axi4(p).spec, WRITE_KEYS)); }
