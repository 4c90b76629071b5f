// A small reader for the VCD text that Verilator writes, or that GTKWave's fst2vcd makes
// of an FST dump: the scope tree with each variable, and the value changes of chosen
// variables. Why our own: docs/waves.md ("Reading dumps"). It keeps only what it is asked
// for, so a large dump costs one pass over its text and little memory.

export interface VcdVar {
  /** `wire`, `reg`, `logic`, `parameter` ... as declared. */
  readonly type: string;
  /** The identifier code of its changes (several variables may share one: aliases). */
  readonly id: string;
  readonly name: string;
  readonly width: number;
  /** `[15:0]` for a vector, '' for a scalar. */
  readonly range: string;
}

export interface VcdScope {
  readonly name: string;
  /** Dotted path from the root, `TOP.nic_top.u_req_tx`. */
  readonly path: string;
  readonly vars: VcdVar[];
  readonly scopes: Map<string, VcdScope>;
}

export interface VcdHeader {
  /** Seconds per time unit as a power of ten (-12 for `$timescale 1ps`). */
  readonly timescale: number;
  /** A root scope without variables whose children are the dump's top scopes (TOP). */
  readonly root: VcdScope;
}

/** One variable's value over time: change times (ascending) and values (null: x or z). */
export interface VcdTrace {
  readonly times: number[];
  readonly values: (bigint | null)[];
}

export class VcdError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VcdError';
  }
}

const scope = (name: string, path: string): VcdScope => ({ name, path, vars: [], scopes: new Map() });

function parseTimescale(text: string): number {
  const m = /^\s*(1|10|100)\s*(s|ms|us|ns|ps|fs)\s*$/.exec(text);
  if (!m) throw new VcdError(`unsupported $timescale ${JSON.stringify(text.trim())}`);
  const unit = { s: 0, ms: -3, us: -6, ns: -9, ps: -12, fs: -15 }[m[2] as 's'];
  return unit + Math.log10(Number(m[1]));
}

/**
 * Reads declarations up to `$enddefinitions`. Returns the header and whether the caller
 * should go on (the line iterator is left just after the declarations).
 */
export async function readHeader(lines: AsyncIterator<string>): Promise<VcdHeader> {
  const root = scope('', '');
  const stack: VcdScope[] = [root];
  let timescale = -12;
  let pending = '';
  for (;;) {
    const next = await lines.next();
    if (next.done) throw new VcdError('the dump ended before $enddefinitions');
    pending = pending ? `${pending} ${next.value}` : next.value;
    const t = pending.trim();
    if (t === '') { pending = ''; continue; }
    // A declaration may span lines ($timescale, $date ...): collect until its $end.
    if (t.startsWith('$') && !/\$end\s*$/.test(t)) continue;
    pending = '';
    const words = t.split(/\s+/);
    switch (words[0]) {
      case '$scope': {
        const parent = stack[stack.length - 1]!;
        const name = words[2] ?? '';
        let s = parent.scopes.get(name);
        if (!s) parent.scopes.set(name, s = scope(name, parent.path ? `${parent.path}.${name}` : name));
        stack.push(s);
        break;
      }
      case '$upscope':
        if (stack.length > 1) stack.pop();
        break;
      case '$var': {
        // $var wire 16 # s_data [15:0] $end
        const width = Number(words[2]);
        const id = words[3]!;
        const name = words[4]!;
        const range = words[5] && words[5] !== '$end' ? words[5] : '';
        stack[stack.length - 1]!.vars.push({ type: words[1] ?? '', id, name, width, range });
        break;
      }
      case '$timescale':
        timescale = parseTimescale(t.slice('$timescale'.length, -'$end'.length));
        break;
      case '$enddefinitions':
        return { timescale, root };
      default:
        break;   // $date, $version, $comment
    }
  }
}

function parseBits(bits: string): bigint | null {
  if (/[xXzZuUwW-]/.test(bits)) return null;
  return BigInt(`0b${bits}`);
}

/** Reads the value changes after the header, keeping those of `ids`. */
export async function readChanges(lines: AsyncIterator<string>, ids: ReadonlySet<string>): Promise<Map<string, VcdTrace>> {
  const traces = new Map<string, VcdTrace>();
  for (const id of ids) traces.set(id, { times: [], values: [] });
  let time = 0;
  const put = (id: string, v: bigint | null): void => {
    const tr = traces.get(id);
    if (!tr) return;
    const n = tr.times.length;
    // Several changes at one time (the initial $dumpvars and a later one): keep the last.
    if (n > 0 && tr.times[n - 1] === time) tr.values[n - 1] = v;
    else { tr.times.push(time); tr.values.push(v); }
  };
  for (;;) {
    const next = await lines.next();
    if (next.done) return traces;
    const line = next.value;
    const c = line.charCodeAt(0);
    if (c === 35 /* # */) { time = Number(line.slice(1)); continue; }
    if (c === 98 || c === 66 /* b B */) {
      const sp = line.indexOf(' ');
      put(line.slice(sp + 1).trim(), parseBits(line.slice(1, sp)));
      continue;
    }
    if (c === 48 || c === 49 /* 0 1 */) { put(line.slice(1).trim(), BigInt(c - 48)); continue; }
    if ('xXzZ'.includes(line[0] ?? '')) { put(line.slice(1).trim(), null); continue; }
    // $dumpvars, $end, $comment, real values: nothing we keep.
  }
}

/** The value of a trace at `time` (the last change at or before it), or null if none yet. */
export function valueAt(tr: VcdTrace, time: number): bigint | null {
  let lo = 0, hi = tr.times.length - 1, found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (tr.times[mid]! <= time) { found = mid; lo = mid + 1; } else hi = mid - 1;
  }
  return found < 0 ? null : tr.values[found]!;
}

/** Finds a scope by its dotted path. */
export function findScope(h: VcdHeader, path: string): VcdScope | undefined {
  let s: VcdScope | undefined = h.root;
  for (const part of path.split('.')) {
    s = s.scopes.get(part);
    if (!s) return undefined;
  }
  return s;
}
