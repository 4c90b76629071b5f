// The anchor blocks: public RTL known to close 250 MHz or more on UltraScale+ in Vivado,
// measured with exactly our flows so nicgen's figures have something to stand beside.
// Only where their code lives and how it is configured is written here; their code is
// never copied into this repository. `scripts/anchors.ts` reads it from a local mirror
// (the commits below), measures it and records the figures in synth/anchors.json, which
// `make bench` and docs/synth.md compare against.

export interface AnchorSource {
  /** owner/name of the public repository. */
  readonly repo: string;
  readonly commit: string;
}

export interface Anchor {
  /** Short name used in reports (`verilog-axis axis_fifo`). */
  readonly name: string;
  readonly source: AnchorSource;
  /** Verilog module measured. */
  readonly module: string;
  /** Files, paths inside the repository, dependencies first. */
  readonly files: readonly string[];
  /** Parameters set on the instance in the wrapper (the rest keep their defaults). */
  readonly params: Readonly<Record<string, number>>;
  /** The nicgen module it is compared with, if one does the same job. */
  readonly peer: string | null;
}

export const VERILOG_AXIS: AnchorSource = { repo: 'alexforencich/verilog-axis', commit: '48ff7a7' };
export const CORUNDUM: AnchorSource = { repo: 'corundum/corundum', commit: '1ca0151' };

const axisRtl = (f: string): string => `rtl/${f}.v`;
const corundumAxis = (f: string): string => `fpga/lib/eth/lib/axis/rtl/${f}.v`;

export const anchors: readonly Anchor[] = [
  {
    name: 'verilog-axis axis_fifo', source: VERILOG_AXIS, module: 'axis_fifo', files: [axisRtl('axis_fifo')],
    // 64-bit words, 16 deep, no side-band signals: the same job as sync_fifo width 64 depth 16.
    params: { DEPTH: 16, DATA_WIDTH: 64, KEEP_ENABLE: 0, LAST_ENABLE: 0, USER_ENABLE: 0 }, peer: 'sync_fifo_width64',
  },
  {
    name: 'verilog-axis arbiter', source: VERILOG_AXIS, module: 'arbiter', files: [axisRtl('priority_encoder'), axisRtl('arbiter')],
    params: { PORTS: 4, ARB_TYPE_ROUND_ROBIN: 1, ARB_BLOCK: 1, ARB_BLOCK_ACK: 1 }, peer: 'rr_arbiter',
  },
  {
    name: 'verilog-axis axis_arb_mux', source: VERILOG_AXIS, module: 'axis_arb_mux', files: [axisRtl('priority_encoder'), axisRtl('arbiter'), axisRtl('axis_arb_mux')],
    params: { S_COUNT: 4, DATA_WIDTH: 64 }, peer: null,
  },
  {
    name: 'verilog-axis axis_register', source: VERILOG_AXIS, module: 'axis_register', files: [axisRtl('axis_register')],
    // REG_TYPE 2 is the skid buffer: the same job as skid_buffer width 64.
    params: { DATA_WIDTH: 64, KEEP_ENABLE: 0, LAST_ENABLE: 0, USER_ENABLE: 0, REG_TYPE: 2 }, peer: 'skid_buffer_width64',
  },
  { name: 'Corundum queue_manager', source: CORUNDUM, module: 'queue_manager', files: ['fpga/common/rtl/queue_manager.v'], params: {}, peer: null },
  {
    name: 'Corundum tx_scheduler_rr', source: CORUNDUM, module: 'tx_scheduler_rr',
    files: [corundumAxis('priority_encoder'), corundumAxis('axis_fifo'), 'fpga/common/rtl/tx_scheduler_rr.v'], params: {}, peer: null,
  },
  { name: 'Corundum dma_if_axi_rd', source: CORUNDUM, module: 'dma_if_axi_rd', files: ['fpga/lib/pcie/rtl/dma_if_axi_rd.v'], params: {}, peer: null },
  { name: 'Corundum dma_if_axi_wr', source: CORUNDUM, module: 'dma_if_axi_wr', files: ['fpga/lib/pcie/rtl/dma_if_axi_wr.v'], params: {}, peer: null },
  { name: 'Corundum rx_hash', source: CORUNDUM, module: 'rx_hash', files: ['fpga/common/rtl/rx_hash.v'], params: {}, peer: null },
  { name: 'Corundum rx_checksum', source: CORUNDUM, module: 'rx_checksum', files: ['fpga/common/rtl/rx_checksum.v'], params: {}, peer: null },
];
