// What `nicgen init` writes: a small project that depends on nicgen, with one design, one
// bench (run by vitest and by `nicgen sim` alike), the config naming both, and a README.
// Kept as text here, not as template files, so nothing in this repository has to resolve
// `nicgen/...` imports; tb/tests/cli/package.test.ts builds and runs the result for real.

export interface InitParams {
  /** package.json name. */
  readonly name: string;
  /** The dependency spec for nicgen: `^0.1.0`, `file:../nicgen`, `file:/x/nicgen-0.1.0.tgz`. */
  readonly nicgen: string;
  /** Versions of the dev tools, pinned as nicgen itself pins them. */
  readonly typescript: string;
  readonly vitest: string;
  readonly vite: string;
  readonly typesNode: string;
}

/** Relative path -> contents, in the order they are written and listed. */
export function initFiles(p: InitParams): ReadonlyMap<string, string> {
  return new Map([
    ['package.json', packageJson(p)],
    ['tsconfig.json', tsconfig],
    ['vitest.config.ts', vitestConfig],
    ['nicgen.config.ts', config],
    ['src/counter.ts', design],
    ['tb/counter.bench.ts', bench],
    ['tb/counter.test.ts', vitestFile],
    ['README.md', readme(p.name)],
    ['.gitignore', gitignore],
  ]);
}

function packageJson(p: InitParams): string {
  const pkg = {
    name: p.name,
    version: '0.1.0',
    private: true,
    type: 'module',
    scripts: {
      gen: 'nicgen gen',
      lint: 'nicgen lint',
      sim: 'nicgen sim --list',
      regress: 'nicgen regress',
      typecheck: 'tsc -p tsconfig.json',
      test: 'vitest run',
    },
    dependencies: { nicgen: p.nicgen },
    devDependencies: { '@types/node': p.typesNode, typescript: p.typescript, vite: p.vite, vitest: p.vitest },
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

const tsconfig = `{
  "compilerOptions": {
    "target": "es2022",
    "module": "nodenext",
    "moduleResolution": "nodenext",
    "strict": true,
    "isolatedModules": true,
    "verbatimModuleSyntax": true,
    "allowImportingTsExtensions": true,
    "noEmit": true,
    "skipLibCheck": true,
    "types": ["node"]
  },
  "include": ["src", "tb", "nicgen.config.ts", "vitest.config.ts"]
}
`;

const vitestConfig = `// \`npm test\`: before any test, nicgen/vitest type-checks nicgen.config.ts, the test files and
// everything they import (tsc, and the check for JavaScript operators on hardware values), as
// \`nicgen gen\` and \`nicgen sim\` do; nicgen/vitest/setup makes a failure's replay line the
// vitest command for exactly that test.

import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tb/**/*.test.ts'],
    globalSetup: ['nicgen/vitest'],
    setupFiles: ['nicgen/vitest/setup'],
    // Building a Verilator model the first time takes a while.
    testTimeout: 300000,
  },
});
`;

const config = `// What the nicgen commands work on: \`nicgen gen\` and \`nicgen lint\` emit the tops,
// \`nicgen sim\` and \`nicgen regress\` run the benches (by top name, then test name).

import { defineConfig } from 'nicgen/config';
import { top } from 'nicgen/emit';
import { counter } from './src/counter.ts';
import { counterBenches } from './tb/counter.bench.ts';

export default defineConfig({
  tops: [top(counter, {}, 'counts enabled cycles from 0 to 99, then wraps')],
  benches: { counter: counterBenches },
  out: 'rtl',
});
`;

const design = `// A counter: counts the cycles in which \`en\` is high from 0 up to \`limit\`, then wraps to
// 0; \`wrap\` is high in the enabled cycle at the limit.

import { Bool, UInt, defineModule, intIn } from 'nicgen/hdl';

export const counter = defineModule('counter', { width: 8, limit: 99 }, (m, p) => {
  const { clk, rst } = m.clockAndReset();
  const en = m.input('en', Bool);
  const count = m.output('count', UInt(p.width));
  const wrap = m.output('wrap', Bool);

  const value = m.reg('value_reg', UInt(p.width), { reset: 0 });
  const atLimit = m.let('at_limit', value.eq(p.limit));
  m.if(en, () => {
    m.if(atLimit, () => value.set(0)).else(() => value.set(value.addw(1)));
  });
  count.set(value);
  wrap.set(en.land(atLimit));
  return { clk, rst, en, count, wrap };
}, {
  doc: 'counts enabled cycles from 0 to limit, then wraps',
  // Checked before the counter is built (nicgen gen counter --set width=0 is one line).
  params: {
    rules: { width: intIn(1, 32), limit: intIn(1, 2 ** 32 - 1) },
    check: p => (p.limit < 2 ** p.width ? null : { param: 'limit', allowed: \`1..\${2 ** p.width - 1} with width \${p.width}\` }),
  },
});
`;

const bench = `// The counter's bench: random enables, and every cycle the outputs against a model.
// Written once: vitest runs it (tb/counter.test.ts), and so do \`nicgen sim counter --test
// random\` and \`nicgen regress\` (nicgen.config.ts lists it). \`expect\` works in both.

import { expect } from 'vitest';
import { defineBench, design } from 'nicgen/tb';
import { counter } from '../src/counter.ts';

const limit = counter.defaults.limit;

export const counterBenches = {
  random: defineBench({
    about: 'random enables; count and wrap checked against a model every cycle',
    design: () => design(counter),
    test: async (dut, tb) => {
      dut.en.value = 0;
      await tb.reset(2);
      let model = 0;
      for (let i = 0; i < 2000; i++) {
        const en = tb.rng.bool(0.7);
        dut.en.value = en ? 1 : 0;
        tb.settle();
        expect(dut.count.value, \`count at cycle \${tb.cycle}\`).toBe(model);
        expect(dut.wrap.value, \`wrap at cycle \${tb.cycle}\`).toBe(en && model === limit ? 1 : 0);
        if (en) model = model === limit ? 0 : model + 1;
        await tb.rising();
      }
    },
  }),
};
`;

const vitestFile = `// The benches under vitest: one test case per bench (\`npm test\`).

import { describe, it } from 'vitest';
import { benchCases } from 'nicgen/tb';
import { counterBenches } from './counter.bench.ts';

describe('counter', () => benchCases(it, counterBenches));
`;

function readme(name: string): string {
  return `# ${name}

A hardware design in TypeScript with nicgen: \`src/\` holds the design,
\`tb/\` its bench, \`nicgen.config.ts\` names the tops to emit and the benches to run.

\`\`\`sh
npm install
npx nicgen gen                            # Verilog, filelists, port manifests and FuseSoC cores into rtl/
npx nicgen sim counter --test random      # the bench on a Verilator model; a failure prints its seed and replay line
\`\`\`

Also: \`npm test\` (the same benches under vitest, type-checked first), \`npx nicgen lint\` (Verilator -Wall, Icarus,
Yosys on every module), \`npx nicgen regress --seeds 50\` (many seeds in parallel: JUnit XML and
an HTML report in out/regress/), \`npx nicgen gen counter --set width=16 --out build/c16\` (one
top with other parameters), \`npx nicgen sim --list\`, \`npm run typecheck\`. Every command has
\`--help\`.
The simulator needs \`verilator\`, \`g++\` and \`make\`; lint needs \`iverilog\` and \`yosys\` too.
`;
}

const gitignore = `node_modules/
.cache/
out/
*.fst
*.vcd
`;
