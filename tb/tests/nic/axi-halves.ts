// tb/bfm's AxiRam and AxiMaster take all five AXI4 channels; the TLB and the AXI muxes have
// read-only or write-only halves (gen/nic/axi-ports.ts). These adapters fill the missing
// channels with idle stand-ins (valid always 0, driven values discarded). A stand-in is named
// after a real port of the same width, because the models look widths up by port name.

import type { AxiMasterPorts, AxiSlavePorts } from '../../bfm/index.ts';

interface Handle { value: number | bigint; readonly name: string }

/** A port that reads 0 and swallows writes. */
function idle(name: string): Handle {
  return { name, get value() { return 0; }, set value(_v: number | bigint) { /* not on this half */ } };
}

type Named = { readonly [k: string]: { readonly name: string } };

const READ_TO_WRITE: Record<string, string> = {
  awid: 'arid', awaddr: 'araddr', awlen: 'arlen', awsize: 'arsize', awburst: 'arburst', awlock: 'arlock',
  awcache: 'arcache', awprot: 'arprot', awvalid: 'arvalid', awready: 'arready',
  wdata: 'rdata', wstrb: 'rresp', wlast: 'rlast', wvalid: 'rvalid', wready: 'rready',
  bid: 'rid', bresp: 'rresp', bvalid: 'rvalid', bready: 'rready',
};

/** Full AXI4 ports from a read half: the write channels idle. */
function fromRead(p: Named): Record<string, unknown> {
  const out: Record<string, unknown> = { ...p };
  for (const [w, r] of Object.entries(READ_TO_WRITE)) out[w] = idle(p[r]!.name);
  return out;
}

/** Full AXI4 ports from a write half: the read channels idle. */
function fromWrite(p: Named): Record<string, unknown> {
  const out: Record<string, unknown> = { ...p };
  for (const [w, r] of Object.entries(READ_TO_WRITE)) if (w !== 'wstrb') out[r] = idle(p[w]!.name);
  return out;
}

/** A DUT's read-only AXI master port, for an AxiRam. */
export const readMasterPorts = (p: object): AxiMasterPorts => fromRead(p as Named) as unknown as AxiMasterPorts;
/** A DUT's write-only AXI master port, for an AxiRam. */
export const writeMasterPorts = (p: object): AxiMasterPorts => fromWrite(p as Named) as unknown as AxiMasterPorts;
/** A DUT's read-only AXI slave port, for an AxiMaster. */
export const readSlavePorts = (p: object): AxiSlavePorts => fromRead(p as Named) as unknown as AxiSlavePorts;
/** A DUT's write-only AXI slave port, for an AxiMaster. */
export const writeSlavePorts = (p: object): AxiSlavePorts => fromWrite(p as Named) as unknown as AxiSlavePorts;
