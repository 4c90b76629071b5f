// The part of the port manifest a wave viewer needs (tb/waves): each emitted module's child
// instances (the scopes of a dump), its interfaces (IO bundles, to group ports) and the
// signals whose shape says more than their bits (struct fields, enum names, vector elements).

import type { ModuleIR } from '../hdl/ir.ts';
import { shapeToJson, type ShapeJson } from '../hdl/shape.ts';
import type { ManifestInterface, ManifestModule } from './manifest.ts';

function interfacesOf(m: ModuleIR): ManifestInterface[] {
  const byPath = new Map<string, string[]>();
  for (const p of m.ports) {
    if (p.path.length < 2) continue;
    const key = p.path.slice(0, -1).join('.');
    let ports = byPath.get(key);
    if (!ports) byPath.set(key, ports = []);
    ports.push(p.signal.name);
  }
  return [...byPath].map(([name, ports]) => ({ name, ports }));
}

export function waveModules(modules: readonly ModuleIR[], nameOf: (m: ModuleIR) => string): { modules: ManifestModule[]; shapes: ShapeJson[] } {
  const shapes: ShapeJson[] = [];
  const shapeIndex = new Map<string, number>();
  const intern = (j: ShapeJson): number => {
    const key = JSON.stringify(j);
    let i = shapeIndex.get(key);
    if (i === undefined) { i = shapes.length; shapes.push(j); shapeIndex.set(key, i); }
    return i;
  };
  const out = modules.filter(m => !m.blackBox).map(m => ({
    name: nameOf(m),
    instances: m.instances.map(i => ({ name: i.name, module: nameOf(i.module) })),
    interfaces: interfacesOf(m),
    typed: m.signals
      .filter(s => s.shape.kind === 'struct' || s.shape.kind === 'enum' || s.shape.kind === 'vec')
      .map(s => ({ name: s.name, shape: intern(shapeToJson(s.shape)) })),
  }));
  return { modules: out, shapes };
}
