// Functional coverage: named cover groups, each the cross of a few dimensions (e.g. opcode ×
// size class), counted by the testbench as it verifies things, saved per run as JSON and
// merged over a regression.
//
// A group is declared once as data (coverage/README or tb/coverage/nic-bins.ts): adding a
// bin is adding a value to a dimension, one line. Bins the design cannot produce are declared
// `unsupported` with the reason, so "every supported bin was hit" is a checkable goal and a
// hole is always a real gap. A hit with a value the group does not declare throws: a typo in
// a testbench must not quietly open a bin nobody reads.

export interface Dimension {
  readonly name: string;
  readonly values: readonly string[];
}

/** Bins of a group the design cannot produce: every bin matching `where` (a value per
 *  dimension named; dimensions left out match anything). */
export interface Unsupported {
  readonly where: Readonly<Record<string, string | readonly string[]>>;
  readonly why: string;
}

export interface CoverGroupSpec {
  readonly name: string;
  /** One line: what a hit means (where it is counted). */
  readonly about: string;
  readonly dims: readonly Dimension[];
  readonly unsupported?: readonly Unsupported[];
}

/** The first run that hit a bin, in plan order (bench, then seed index): deterministic, so a
 *  sharded regression names the same run as an unsharded one. */
export interface FirstHit {
  readonly top: string;
  readonly test: string;
  readonly seed: number;
  /** Position of the run in the regression's plan. */
  readonly order: number;
}

export interface BinData {
  /** `dim=value,dim=value`, in dimension order. */
  readonly id: string;
  readonly count: number;
  /** Why the design cannot produce it; such a bin is never a hole. */
  readonly unsupported?: string;
  readonly first?: FirstHit;
}

export interface GroupData {
  readonly name: string;
  readonly about: string;
  readonly dims: readonly Dimension[];
  readonly bins: readonly BinData[];
}

export const FUNCTIONAL_FORMAT = 'nicgen-functional/1';

export interface FunctionalData {
  readonly format: typeof FUNCTIONAL_FORMAT;
  readonly groups: readonly GroupData[];
}

export function dim(name: string, values: readonly (string | number)[]): Dimension {
  return { name, values: values.map(String) };
}

function binId(dims: readonly Dimension[], values: readonly string[]): string {
  return dims.map((d, i) => `${d.name}=${values[i]}`).join(',');
}

/** Every combination of the dimensions' values, first dimension slowest. */
function crossValues(dims: readonly Dimension[]): string[][] {
  let out: string[][] = [[]];
  for (const d of dims) out = out.flatMap(prefix => d.values.map(v => [...prefix, v]));
  return out;
}

function unsupportedWhy(spec: CoverGroupSpec, values: readonly string[]): string | undefined {
  for (const u of spec.unsupported ?? []) {
    const matches = spec.dims.every((d, i) => {
      const w = u.where[d.name];
      return w === undefined || (typeof w === 'string' ? w === values[i] : w.includes(values[i]!));
    });
    if (matches) return u.why;
  }
  return undefined;
}

function checkSpec(spec: CoverGroupSpec): void {
  const names = spec.dims.map(d => d.name);
  if (new Set(names).size !== names.length) throw new Error(`cover group '${spec.name}': two dimensions share a name (${names.join(', ')})`);
  for (const d of spec.dims) {
    if (d.values.length === 0) throw new Error(`cover group '${spec.name}': dimension '${d.name}' has no values`);
    if (new Set(d.values).size !== d.values.length) throw new Error(`cover group '${spec.name}': dimension '${d.name}' lists a value twice`);
  }
  for (const u of spec.unsupported ?? []) {
    for (const [k, v] of Object.entries(u.where)) {
      const d = spec.dims.find(x => x.name === k);
      if (!d) throw new Error(`cover group '${spec.name}': unsupported bin names unknown dimension '${k}'`);
      for (const x of typeof v === 'string' ? [v] : v) {
        if (!d.values.includes(x)) throw new Error(`cover group '${spec.name}': unsupported bin names unknown ${k}=${x}`);
      }
    }
  }
}

/** One group's counters in a run. */
export class CoverGroup {
  readonly spec: CoverGroupSpec;
  readonly #index = new Map<string, number>();
  readonly #counts: number[];
  readonly #ids: string[];

  constructor(spec: CoverGroupSpec) {
    checkSpec(spec);
    this.spec = spec;
    this.#ids = crossValues(spec.dims).map(v => binId(spec.dims, v));
    this.#ids.forEach((id, i) => this.#index.set(id, i));
    this.#counts = this.#ids.map(() => 0);
  }

  /** Counts one hit of the bin with these values (one per dimension, by name). */
  hit(values: Readonly<Record<string, string | number>>): void {
    const parts = this.spec.dims.map(d => {
      const v = values[d.name];
      if (v === undefined) throw new Error(`cover group '${this.spec.name}': hit without a value for '${d.name}'`);
      const s = String(v);
      if (!d.values.includes(s)) throw new Error(`cover group '${this.spec.name}': ${d.name}=${s} is not a declared value (${d.values.join(', ')})`);
      return s;
    });
    this.#counts[this.#index.get(binId(this.spec.dims, parts))!]!++;
  }

  data(): GroupData {
    const values = crossValues(this.spec.dims);
    return {
      name: this.spec.name, about: this.spec.about, dims: this.spec.dims,
      bins: this.#ids.map((id, i) => {
        const why = unsupportedWhy(this.spec, values[i]!);
        return { id, count: this.#counts[i]!, ...(why !== undefined ? { unsupported: why } : {}) };
      }),
    };
  }
}

/** A run's functional coverage: the groups some collector declared, by name. */
export class FunctionalCoverage {
  readonly #groups = new Map<string, CoverGroup>();

  /** The group named by `spec` (declared on first use; a second declaration must be identical). */
  group(spec: CoverGroupSpec): CoverGroup {
    const have = this.#groups.get(spec.name);
    if (have) {
      if (JSON.stringify(have.spec) !== JSON.stringify(spec)) throw new Error(`cover group '${spec.name}' declared twice with different bins`);
      return have;
    }
    const g = new CoverGroup(spec);
    this.#groups.set(spec.name, g);
    return g;
  }

  get empty(): boolean {
    return this.#groups.size === 0;
  }

  data(): FunctionalData {
    return { format: FUNCTIONAL_FORMAT, groups: [...this.#groups.values()].map(g => g.data()) };
  }
}

export function parseFunctional(text: string, where: string): FunctionalData {
  const d = JSON.parse(text) as FunctionalData;
  if (d.format !== FUNCTIONAL_FORMAT) throw new Error(`${where}: not a functional coverage file (format ${String(d.format)})`);
  return d;
}

/** A run's data with where it stands in the plan (for first hits). */
export interface RunFunctional {
  readonly data: FunctionalData;
  /** Set on a single run's data; merged data carries first hits per bin instead. */
  readonly run?: FirstHit;
}

const earlier = (a: FirstHit | undefined, b: FirstHit | undefined): FirstHit | undefined =>
  a === undefined ? b : b === undefined ? a : b.order < a.order ? b : a;

/**
 * Sums the counts of every input (runs or merged results), keeping each bin's earliest first
 * hit by plan order. Groups are matched by name and must declare the same bins everywhere;
 * the result lists groups in order of first appearance.
 */
export function mergeFunctional(inputs: readonly RunFunctional[]): FunctionalData {
  const groups = new Map<string, { g: GroupData; bins: Map<string, { count: number; unsupported?: string; first?: FirstHit }> }>();
  for (const input of inputs) {
    for (const g of input.data.groups) {
      let acc = groups.get(g.name);
      if (!acc) {
        acc = { g, bins: new Map(g.bins.map(b => [b.id, { count: 0, ...(b.unsupported !== undefined ? { unsupported: b.unsupported } : {}) }])) };
        groups.set(g.name, acc);
      }
      if (JSON.stringify(acc.g.dims) !== JSON.stringify(g.dims)) throw new Error(`cover group '${g.name}' has different bins in two runs (mixed testbench versions?)`);
      for (const b of g.bins) {
        const a = acc.bins.get(b.id)!;
        a.count += b.count;
        const first = b.count > 0 ? (input.run ?? b.first) : undefined;
        const f = earlier(a.first, first);
        if (f) a.first = f;
      }
    }
  }
  return {
    format: FUNCTIONAL_FORMAT,
    groups: [...groups.values()].map(({ g, bins }) => ({
      name: g.name, about: g.about, dims: g.dims,
      bins: g.bins.map(b => ({ id: b.id, ...bins.get(b.id)! })),
    })),
  };
}

export interface FunctionalSummary {
  readonly bins: number;
  readonly supported: number;
  readonly hit: number;
  /** Supported bins never hit: `group: dim=v,...`. */
  readonly holes: readonly { readonly group: string; readonly bin: string }[];
}

export function summarizeFunctional(d: FunctionalData): FunctionalSummary {
  let bins = 0, supported = 0, hit = 0;
  const holes: { group: string; bin: string }[] = [];
  for (const g of d.groups) {
    for (const b of g.bins) {
      bins++;
      if (b.unsupported !== undefined) continue;
      supported++;
      if (b.count > 0) hit++;
      else holes.push({ group: g.name, bin: b.id });
    }
  }
  return { bins, supported, hit, holes };
}
