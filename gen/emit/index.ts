// The Verilog back end: one file per module, a filelist, and the port manifest.
export { emitTop, emitModuleIR } from './design.ts';
export type { EmittedTop } from './design.ts';
export { MANIFEST_FORMAT } from './manifest.ts';
export type { Manifest, ManifestPort, ManifestAssert, ManifestFsm, ManifestDomain } from './manifest.ts';

export { emitProject, top, reconfigure, topName } from './project.ts';
export type { TopEntry, ModuleStats, EmittedProject, ProjectOptions } from './project.ts';
export { coreFile } from './fusesoc.ts';
