// Misspelt and missing ports at run time. A handle tree node (`dut`, `dut.m_len`) answers
// an unknown name with undefined, as a plain object does, because bus models probe optional
// ports (`ports.tkeep === undefined`); but each such miss is recorded with the line that made
// it, and when the test then fails with `Cannot set properties of undefined` at that line,
// runTest reports the port instead: its name, the ports that come closest, the line. A port
// handle itself knows all its properties, so `dut.s.valid.valu` fails at once.
//
// The checks sit on the prototype chain (a Proxy behind the objects), so looking up a name
// that exists never reaches them and costs what it did (measured: the same ns per access).

import { formatSite, stackAt, userFrame, type CallSite } from '../../sim/caller.ts';

export class PortNameError extends Error {
  constructor(message: string, options?: { cause: unknown }) {
    super(message, options);
    this.name = 'PortNameError';
  }
}

export interface PortMiss {
  /** `dut.m_len`. */
  readonly node: string;
  readonly name: string;
  readonly site: CallSite | undefined;
}

/** Records misses of one handle tree; keeps the last few (a probe per bus model is normal). */
export class PortMisses {
  readonly #list: PortMiss[] = [];
  readonly #paths: readonly string[];

  constructor(paths: readonly string[]) {
    this.#paths = paths;
  }

  record(node: string, name: string): void {
    this.#list.push({ node, name, site: userFrame(new Error().stack) });
    if (this.#list.length > 64) this.#list.shift();
  }

  /** A PortNameError for `err` when it is the TypeError a recorded miss led to, else undefined. */
  explain(err: unknown): PortNameError | undefined {
    if (!(err instanceof TypeError)) return undefined;
    const m = /^Cannot (?:set|read) properties of undefined \((?:setting|reading) '([^']*)'\)/.exec(err.message);
    if (!m) return undefined;
    const at = userFrame(err.stack);
    if (!at) return undefined;
    const miss = [...this.#list].reverse().find(x => x.site && x.site.file === at.file && x.site.line === at.line);
    if (!miss) return undefined;
    const e = new PortNameError(`${miss.node} has no port '${miss.name}'${closest(`${miss.node.replace(/^dut\.?/, '')}${miss.node === 'dut' ? '' : '.'}${miss.name}`, this.#paths)}; at ${formatSite(at)}`, { cause: err });
    stackAt(e, `${at.file}:${at.line}:${at.column}`);
    return e;
  }
}

/** Edit distance, for "did you mean". */
function distance(a: string, b: string): number {
  const d = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = d[0]!;
    d[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = d[j]!;
      d[j] = Math.min(d[j]! + 1, d[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return d[b.length]!;
}

/** `; closest ports: m_len.ready, m_len.valid` (up to three, when any is near). */
export function closest(wanted: string, paths: readonly string[]): string {
  const leaf = (p: string): string => p.slice(p.lastIndexOf('.') + 1);
  const scored = paths.map(p => ({ p, d: Math.min(distance(wanted, p), distance(leaf(wanted), leaf(p)) + (p.startsWith(wanted.slice(0, wanted.lastIndexOf('.') + 1)) ? 0 : 2)) }))
    .sort((a, b) => a.d - b.d || a.p.localeCompare(b.p));
  const near = scored.filter(s => s.d <= Math.max(2, Math.floor(leaf(wanted).length / 2))).slice(0, 3);
  const pick = near.length ? near : scored.slice(0, 3);
  return pick.length ? `; closest ports: ${pick.map(s => s.p).join(', ')}` : '';
}

/** Names the runtime itself asks objects about (await, printing, test matchers). */
const PROBES = new Set(['then', 'toJSON', 'asymmetricMatch', '$$typeof', 'nodeType', 'tagName', '@@__IMMUTABLE_ITERABLE__@@',
  '@@__IMMUTABLE_RECORD__@@', '_isMockFunction', 'inspect', 'constructor']);

/** A prototype for a node of the tree at `node`: misses are recorded, then answered undefined. */
export function recordingPrototype(node: string, misses: PortMisses): object {
  return new Proxy(Object.create(Object.prototype) as object, {
    get(target, prop, receiver) {
      if (typeof prop === 'symbol' || prop in Object.prototype || PROBES.has(prop)) return Reflect.get(target, prop, receiver);
      misses.record(node, prop);
      return undefined;
    },
  });
}

/** A prototype for port handles: any other property than theirs is an error, read or written. */
export function strictHandlePrototype(base: object, properties: string): object {
  return new Proxy(base, {
    get(target, prop, receiver) {
      if (typeof prop === 'symbol' || prop in target || PROBES.has(prop)) return Reflect.get(target, prop, receiver);
      throw new PortNameError(`port ${String((receiver as { name?: unknown }).name)} has no property '${prop}' (a port handle has ${properties})${where()}`);
    },
    set(_target, prop, value, receiver) {
      // While a handle is being built its fields are still being defined.
      if (Object.isExtensible(receiver)) return Reflect.defineProperty(receiver as object, prop, { value, writable: true, enumerable: true, configurable: true });
      throw new PortNameError(`port ${String((receiver as { name?: unknown }).name)} has no property '${String(prop)}' to set (a port handle has ${properties})${where()}`);
    },
  });
}

function where(): string {
  const f = userFrame(new Error().stack);
  return f ? `; at ${formatSite(f)}` : '';
}
