// Readers for what Yosys and nextpnr print: `stat` cell counts, `sta`'s worst path, `ltp`'s
// longest path and nextpnr-ice40's Fmax and critical path. Each takes the tool's text and
// throws when the text does not have the expected shape, so a changed tool version fails
// loudly instead of reporting zeros.

/** Cell type -> count, from `stat` (one module or the selection's summary). */
export function parseStat(text: string): Map<string, number> {
  const cells = new Map<string, number>();
  const at = text.lastIndexOf('Number of cells:');
  if (at < 0) throw new Error(`no 'Number of cells' in Yosys stat output:\n${text.slice(0, 400)}`);
  for (const line of text.slice(at).split('\n').slice(1)) {
    const m = /^\s+(\S+)\s+(\d+)\s*$/.exec(line);
    if (!m) break;
    cells.set(m[1]!, Number(m[2]));
  }
  return cells;
}

/** One step of `sta`'s worst path: a cell arc and the net at its input. */
export interface StaStep {
  /** Arrival at the cell's output (or the endpoint's input), in ps. */
  readonly arrival: number;
  readonly cell: string;
  readonly type: string;
  /** `D`, `I0->O`, `C->Q`, ... */
  readonly arc: string;
  /** The net feeding this arc (as Yosys prints it: `\u_dut.x [3]`, `$abc$...`). */
  readonly net: string;
}

export interface StaPath {
  /** Worst arrival in ps (what `sta` calls the latest arrival time). */
  readonly arrival: number;
  /** Endpoint first, as `sta` prints it. */
  readonly steps: readonly StaStep[];
  /** Endpoints per arrival bucket of the histogram (highest first). */
  readonly histogram: readonly { readonly upTo: number; readonly from: number; readonly endpoints: number }[];
}

export function parseSta(text: string): StaPath {
  const head = /Latest arrival time in '[^']*' is (\d+):/.exec(text);
  if (!head) throw new Error(`no 'Latest arrival time' in Yosys sta output:\n${text.slice(0, 400)}`);
  const lines = text.slice(head.index + head[0].length).split('\n');
  const steps: StaStep[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^\s+(\d+) (\S+) \((\S+?)\.(\S+)\)\s*$/.exec(lines[i]!);
    if (!m) { if (/^Arrival histogram/.test(lines[i]!)) break; continue; }
    const net = (lines[i + 1] ?? '').trim();
    steps.push({ arrival: Number(m[1]), cell: m[2]!, type: m[3]!, arc: m[4]!, net });
  }
  const histogram: StaPath['histogram'][number][] = [];
  const hist = text.indexOf('Arrival histogram:');
  if (hist >= 0) {
    for (const line of text.slice(hist).split('\n')) {
      const h = /^\(\s*(\d+),\s*(\d+)\]\s*\|([*+ ]*)$/.exec(line);
      if (h) histogram.push({ upTo: Number(h[1]), from: Number(h[2]), endpoints: [...h[3]!].filter(c => c === '*').length });
    }
  }
  return { arrival: Number(head[1]), steps, histogram };
}

/** `ltp`'s longest path: its length in cells and the nets along it (start first). */
export interface LtpPath {
  readonly length: number;
  readonly nets: readonly string[];
  /** The cell each net after the first was reached through. */
  readonly cells: readonly string[];
}

export function parseLtp(text: string): LtpPath {
  const head = /Longest topological path in \S+ \(length=(\d+)\):/.exec(text);
  if (!head) throw new Error(`no 'Longest topological path' in Yosys ltp output:\n${text.slice(0, 400)}`);
  const nets: string[] = [];
  const cells: string[] = [];
  for (const line of text.slice(head.index + head[0].length).split('\n')) {
    const m = /^\s+\d+: (.*?)(?: \(via (.*)\))?\s*$/.exec(line);
    if (!m) { if (nets.length) break; continue; }
    nets.push(m[1]!);
    if (m[2]) cells.push(m[2]);
  }
  return { length: Number(head[1]), nets, cells };
}

export interface NextpnrTiming {
  /** Routed Fmax of the wrapper's clock in MHz. */
  readonly fmaxMhz: number;
  /** Nets of the critical path, source first. */
  readonly nets: readonly string[];
  /** The cell the critical path starts from and the one whose setup ends it. */
  readonly source: string | null;
  readonly sink: string | null;
  /** Logic cells (ICESTORM_LC) nextpnr placed. */
  readonly lcs: number | null;
}

export function parseNextpnr(log: string): NextpnrTiming {
  const fmax = [...log.matchAll(/Max frequency for clock '[^']*': ([\d.]+) MHz/g)].pop();
  if (!fmax) throw new Error(`no 'Max frequency' in nextpnr output:\n${log.slice(-600)}`);
  // The last critical path report is the routed one.
  const report = log.lastIndexOf('Critical path report for clock');
  const nets: string[] = [];
  let source: string | null = null;
  let sink: string | null = null;
  if (report >= 0) {
    for (const line of log.slice(report).split('\n').slice(1)) {
      if (/ns logic, .* ns routing/.test(line) || /Max frequency/.test(line)) break;
      const n = /\bNet (\S+)/.exec(line);
      if (n && nets[nets.length - 1] !== n[1]) nets.push(n[1]!);
      const src = /\bSource (\S+)/.exec(line);
      if (src && source === null) source = src[1]!;
      const setup = /\bSetup (\S+)/.exec(line);
      if (setup) sink = setup[1]!;
    }
  }
  const lc = /ICESTORM_LC:\s+(\d+)\//.exec(log);
  return { fmaxMhz: Number(fmax[1]), nets, source, sink, lcs: lc ? Number(lc[1]) : null };
}
