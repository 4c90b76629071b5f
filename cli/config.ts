// The project a `nicgen` command works on: the nearest `nicgen.config.ts` at or above the
// current folder names its tops (what `gen`/`lint`/`modules` emit) and its benches (what
// `sim`/`regress` run). This repository is such a project too (its config lists gen/tops.ts
// and tb/benches/index.ts), so the commands behave the same here and in a user's project.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { TopEntry } from '../gen/emit/project.ts';
import { setLocationRoot } from '../gen/hdl/errors.ts';
import type { BenchGroup } from '../tb/benches/bench.ts';
import { UsageError } from './usage-error.ts';

export const configFileName = 'nicgen.config.ts';

/** What a project's `nicgen.config.ts` exports as its default. */
export interface NicgenConfig {
  /** The tops `nicgen gen` writes and `nicgen lint` checks (made with `top(...)` from nicgen/emit). */
  readonly tops: readonly TopEntry[];
  /** Benches by top name, then test name (made with `defineBench` from nicgen/tb). */
  readonly benches?: Readonly<Record<string, BenchGroup>>;
  /** Folder `nicgen gen` writes when no `--out` is given, relative to the config file (default `rtl`). */
  readonly out?: string;
}

/** Identity, for the types: `export default defineConfig({ tops, benches })`. */
export function defineConfig(config: NicgenConfig): NicgenConfig {
  return config;
}

/** A loaded project. */
export interface Project {
  /** The folder holding nicgen.config.ts: relative paths in the config and in messages start here. */
  readonly root: string;
  readonly configFile: string;
  readonly tops: readonly TopEntry[];
  readonly benches: Readonly<Record<string, BenchGroup>>;
  /** Absolute default output folder of `nicgen gen`. */
  readonly out: string;
  /** How a user types the command in this project: `./bin/nicgen` here, `npx nicgen` elsewhere. */
  readonly command: string;
}

/** The installed nicgen package (this repository, or node_modules/nicgen of a user project). */
export const packageRoot = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
/** The `nicgen` executable of this package (what regressions spawn). */
export const nicgenBin = path.join(packageRoot, 'bin', 'nicgen');

/** The nearest nicgen.config.ts at or above `from`, or undefined. */
export function findConfig(from: string): string | undefined {
  for (let dir = path.resolve(from); ; dir = path.dirname(dir)) {
    const file = path.join(dir, configFileName);
    if (fs.existsSync(file)) return file;
    if (path.dirname(dir) === dir) return undefined;
  }
}

let loaded: Promise<Project> | undefined;

/** The project of the current folder, loaded once per process. */
export function currentProject(): Promise<Project> {
  loaded ??= loadProject(process.cwd());
  return loaded;
}

export async function loadProject(from: string): Promise<Project> {
  const configFile = findConfig(from);
  if (configFile === undefined) {
    throw new UsageError(`no ${configFileName} in ${path.resolve(from)} or any folder above it: make a project with 'npx nicgen init DIR', or run nicgen inside one`);
  }
  const root = path.dirname(configFile);
  // Messages and generated headers name files relative to the project, wherever nicgen runs.
  setLocationRoot(root);
  const mod = (await import(pathToFileURL(configFile).href)) as { default?: unknown };
  const config = checkConfig(mod.default, configFile);
  const isThisRepo = path.resolve(root) === path.resolve(packageRoot);
  return {
    root,
    configFile,
    tops: config.tops,
    benches: config.benches ?? {},
    out: path.resolve(root, config.out ?? 'rtl'),
    command: isThisRepo ? './bin/nicgen' : 'npx nicgen',
  };
}

/** The config's shape, checked at run time: it is user code, and tsc may not have run. */
function checkConfig(value: unknown, file: string): NicgenConfig {
  const where = path.basename(file);
  if (typeof value !== 'object' || value === null) {
    throw new UsageError(`${where} has no default export: end it with 'export default defineConfig({ tops: [...], benches: {...} })'`);
  }
  const c = value as Record<string, unknown>;
  if (!Array.isArray(c['tops']) || !c['tops'].every(isTopEntry)) {
    throw new UsageError(`${where}: 'tops' must be a list made with top(def, params, 'about') from nicgen/emit`);
  }
  const benches = c['benches'];
  if (benches !== undefined) {
    if (typeof benches !== 'object' || benches === null) throw new UsageError(`${where}: 'benches' must be an object: top name -> { test name: defineBench(...) }`);
    for (const [topName, group] of Object.entries(benches)) {
      if (typeof group !== 'object' || group === null) throw new UsageError(`${where}: benches.${topName} must be an object of benches made with defineBench(...)`);
      for (const [test, b] of Object.entries(group as Record<string, unknown>)) {
        if (!isBench(b)) throw new UsageError(`${where}: benches.${topName}.${test} is not a bench made with defineBench(...) from nicgen/tb`);
      }
    }
  }
  if (c['out'] !== undefined && typeof c['out'] !== 'string') throw new UsageError(`${where}: 'out' must be a folder name`);
  return value as NicgenConfig;
}

function isTopEntry(v: unknown): v is TopEntry {
  return typeof v === 'object' && v !== null && typeof (v as TopEntry).emit === 'function' && typeof (v as TopEntry).about === 'string';
}

function isBench(v: unknown): boolean {
  return typeof v === 'object' && v !== null && typeof (v as { run?: unknown }).run === 'function' && typeof (v as { about?: unknown }).about === 'string';
}
