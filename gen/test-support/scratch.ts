// A bare module builder for expression-level tests: no definition, no port record check.

import { ModuleBuilder } from '../hdl/module.ts';
import type { ModuleIR } from '../hdl/ir.ts';
import { unknownLoc } from '../hdl/errors.ts';

export function scratch(name = 'scratch'): ModuleBuilder {
  const ir: ModuleIR = {
    name, defName: name, params: {}, doc: null, ports: [], signals: [], memories: [], instances: [],
    body: [], domains: new Map(), fsms: [], blackBox: null, loc: unknownLoc,
  };
  return new ModuleBuilder(ir);
}
