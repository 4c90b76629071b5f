// Reading a hand-written JSON file field by field, each read knowing its JSON path, so every
// complaint names the exact field (`mrs[1].pages[3]: 0x1234 is not 4 KiB aligned`). Numbers
// may be JSON numbers or strings ("0x7f0000001000", "4096"): 64-bit addresses do not fit a
// JSON number exactly, and engineers copy hex values out of captures.

/** A bad scenario: `path` is the JSON path of the field at fault ('' for the whole file). */
export class ScenarioError extends Error {
  override readonly name = 'ScenarioError';
  readonly path: string;
  readonly detail: string;
  constructor(path: string, detail: string, file?: string) {
    super(`${file ? `${file}: ` : ''}${path ? `${path}: ` : ''}${detail}`);
    this.path = path;
    this.detail = detail;
  }

  /** The same complaint, prefixed with the scenario file's name. */
  inFile(file: string): ScenarioError {
    return new ScenarioError(this.path, this.detail, file);
  }
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** A JSON value at a path. Every accessor either returns a well-typed value or throws a
 *  ScenarioError naming the path. */
export class JsonAt {
  readonly path: string;
  readonly value: unknown;

  constructor(value: unknown, path = '') {
    this.value = value;
    this.path = path;
  }

  fail(message: string): never {
    throw new ScenarioError(this.path, message);
  }

  get isMissing(): boolean { return this.value === undefined; }

  /** The fields of an object; unknown keys are an error (a typo must not be ignored). */
  object(known: readonly string[]): Record<string, JsonAt> {
    const v = this.value;
    if (typeof v !== 'object' || v === null || Array.isArray(v)) this.fail(`expected an object, got ${describe(v)}`);
    const obj = v as Record<string, Json>;
    const extra = Object.keys(obj).filter(k => !known.includes(k));
    if (extra.length) new JsonAt(obj[extra[0]!], this.child(extra[0]!)).fail(`unknown field (known: ${known.join(', ')})`);
    return Object.fromEntries(known.map(k => [k, new JsonAt(obj[k], this.child(k))]));
  }

  array(): JsonAt[] {
    if (!Array.isArray(this.value)) this.fail(`expected an array, got ${describe(this.value)}`);
    return (this.value as Json[]).map((x, i) => new JsonAt(x, `${this.path}[${i}]`));
  }

  string(): string {
    if (typeof this.value !== 'string') this.fail(`expected a string, got ${describe(this.value)}`);
    return this.value as string;
  }

  required(): this {
    if (this.value === undefined) this.fail('missing');
    return this;
  }

  /** An unsigned integer of at most `bits` bits, as a bigint. */
  uintBig(bits: number): bigint {
    const v = this.value;
    let n: bigint;
    if (typeof v === 'number') {
      if (!Number.isSafeInteger(v)) this.fail(`${v} is not an integer that a JSON number holds exactly (write big values as a "0x..." string)`);
      n = BigInt(v);
    } else if (typeof v === 'string' && /^(0x[0-9a-fA-F]+|[0-9]+)$/.test(v.replace(/_/g, ''))) {
      n = BigInt(v.replace(/_/g, ''));
    } else {
      this.fail(`expected an unsigned integer (number, or a "0x..." / decimal string), got ${describe(v)}`);
    }
    if (n < 0n || n >= 1n << BigInt(bits)) this.fail(`${v} does not fit in ${bits} unsigned bits`);
    return n;
  }

  /** An unsigned integer in [min, max]. */
  uint(bits: number, min = 0, max = 2 ** bits - 1): number {
    const n = Number(this.uintBig(bits));
    if (n < min || n > max) this.fail(`${n} is outside ${min}..${max}`);
    return n;
  }

  oneOf<T extends string>(choices: readonly T[]): T {
    const s = this.string();
    if (!(choices as readonly string[]).includes(s)) this.fail(`'${s}' is not one of ${choices.join(', ')}`);
    return s as T;
  }

  child(key: string): string {
    return this.path ? `${this.path}.${key}` : key;
  }
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing (field missing)';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return `the string "${v.length > 40 ? `${v.slice(0, 40)}...` : v}"`;
  return `${typeof v} ${String(v)}`;
}
