// Conversion between JS values and the bits of a port in the word buffer.
//
// Numbers are used up to 32 bits and bigints above (the `ValueOf` contract in
// gen/hdl/shape.ts); either is accepted on write as long as the value fits. Structs
// and vectors are packed LSB first, the way the emitter lays them out. A codec is
// built once per port so the per-access path is a closure over fixed offsets.

import type { ShapeJson } from '../gen/hdl/shape.ts';
import { PortValueError } from './errors.ts';

export type PortValue = number | bigint | PortValue[] | { [field: string]: PortValue };

export interface Codec {
  read(buf: Uint32Array, offset: number): PortValue;
  write(buf: Uint32Array, offset: number, value: PortValue): void;
}

function describe(shape: ShapeJson): string {
  switch (shape.kind) {
    case 'uint': return `UInt(${shape.width})`;
    case 'sint': return `SInt(${shape.width})`;
    case 'clock': return 'Clock';
    case 'struct': return `Struct ${shape.name}`;
    case 'enum': return `Enum ${shape.name}`;
    case 'vec': return `Vec(${shape.count})`;
  }
}

function show(value: unknown): string {
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'object' && value !== null) return JSON.stringify(value, (_k, v: unknown) => typeof v === 'bigint' ? `${v}n` : v);
  return String(value);
}

/** Checks range and returns the two's-complement bits of a scalar as a bigint. */
function scalarBits(name: string, shape: ShapeJson, width: number, signed: boolean, value: PortValue): bigint {
  let v: bigint;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new PortValueError(name, `${show(value)} is not a safe integer (use a bigint for wide values)`);
    v = BigInt(value);
  } else if (typeof value === 'bigint') {
    v = value;
  } else {
    throw new PortValueError(name, `${describe(shape)} takes a number or bigint, got ${show(value)}`);
  }
  const lo = signed ? -(1n << BigInt(width - 1)) : 0n;
  const hi = signed ? (1n << BigInt(width - 1)) - 1n : (1n << BigInt(width)) - 1n;
  if (v < lo || v > hi) {
    const why = !signed && v < 0n ? 'negative value for an unsigned port' : 'does not fit';
    throw new PortValueError(name, `${show(value)} ${why}: ${describe(shape)} holds ${lo}..${hi}`);
  }
  return BigInt.asUintN(width, v);
}

/** Packs any shape's value into its bit vector. */
export function toBits(name: string, shape: ShapeJson, value: PortValue): bigint {
  switch (shape.kind) {
    case 'uint': case 'clock': case 'enum': return scalarBits(name, shape, shape.width, false, value);
    case 'sint': return scalarBits(name, shape, shape.width, true, value);
    case 'struct': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw new PortValueError(name, `${describe(shape)} takes an object with fields ${shape.fields.map(f => f.name).join(', ')}, got ${show(value)}`);
      }
      const known = new Set(shape.fields.map(f => f.name));
      for (const k of Object.keys(value)) {
        if (!known.has(k)) throw new PortValueError(name, `${describe(shape)} has no field ${k}`);
      }
      let bits = 0n;
      for (const f of shape.fields) {
        const fv = value[f.name];
        if (fv === undefined) throw new PortValueError(name, `${describe(shape)}: field ${f.name} is missing`);
        bits |= toBits(`${name}.${f.name}`, f.shape, fv) << BigInt(f.offset);
      }
      return bits;
    }
    case 'vec': {
      if (!Array.isArray(value) || value.length !== shape.count) {
        throw new PortValueError(name, `${describe(shape)} takes an array of ${shape.count} elements, got ${show(value)}`);
      }
      let bits = 0n;
      const w = BigInt(shape.element.width);
      value.forEach((ev, i) => { bits |= toBits(`${name}[${i}]`, shape.element, ev) << (w * BigInt(i)); });
      return bits;
    }
  }
}

/** Unpacks a bit vector into the JS value of its shape. */
export function fromBits(shape: ShapeJson, bits: bigint): PortValue {
  switch (shape.kind) {
    case 'uint': case 'clock': case 'enum':
      return shape.width <= 32 ? Number(bits) : bits;
    case 'sint': {
      const v = BigInt.asIntN(shape.width, bits);
      return shape.width <= 32 ? Number(v) : v;
    }
    case 'struct': {
      const out: { [field: string]: PortValue } = {};
      for (const f of shape.fields) {
        out[f.name] = fromBits(f.shape, BigInt.asUintN(f.shape.width, bits >> BigInt(f.offset)));
      }
      return out;
    }
    case 'vec': {
      const w = BigInt(shape.element.width);
      return Array.from({ length: shape.count }, (_, i) => fromBits(shape.element, BigInt.asUintN(shape.element.width, bits >> (w * BigInt(i)))));
    }
  }
}

function readWords(buf: Uint32Array, offset: number, words: number): bigint {
  let v = 0n;
  for (let i = words - 1; i >= 0; i--) v = (v << 32n) | BigInt(buf[offset + i]!);
  return v;
}

function writeWords(buf: Uint32Array, offset: number, words: number, bits: bigint): void {
  for (let i = 0; i < words; i++) {
    buf[offset + i] = Number(bits & 0xffffffffn);
    bits >>= 32n;
  }
}

/** Fast path for plain unsigned / signed ports of up to 32 bits: no bigint on the hot path. */
function narrowCodec(name: string, shape: ShapeJson, width: number, signed: boolean): Codec {
  const lo = signed ? -(2 ** (width - 1)) : 0;
  const hi = signed ? 2 ** (width - 1) - 1 : 2 ** width - 1;
  const shift = 32 - width;
  const mask = width === 32 ? 0xffffffff : 2 ** width - 1;
  return {
    read: signed
      ? (buf, o) => (buf[o]! << shift) >> shift
      : (buf, o) => buf[o]!,
    write(buf, o, value) {
      if (typeof value === 'number' && Number.isInteger(value) && value >= lo && value <= hi) {
        buf[o] = value & mask;
        return;
      }
      // Slow path: bigint input or an error to report.
      buf[o] = Number(scalarBits(name, shape, width, signed, value));
    },
  };
}

export function codecFor(name: string, shape: ShapeJson): Codec {
  if ((shape.kind === 'uint' || shape.kind === 'sint' || shape.kind === 'enum') && shape.width <= 32) {
    return narrowCodec(name, shape, shape.width, shape.kind === 'sint');
  }
  const words = Math.ceil(shape.width / 32);
  return {
    read: (buf, o) => fromBits(shape, readWords(buf, o, words)),
    write: (buf, o, value) => writeWords(buf, o, words, toBits(name, shape, value)),
  };
}
