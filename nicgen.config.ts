// This repository as a nicgen project: the tops `nicgen gen` writes into rtl/ and the benches
// `nicgen sim` and `make regress` run. A user's project has its own (`nicgen init` writes one).

import { defineConfig } from './cli/config.ts';
import { tops } from './gen/tops.ts';
import { benches } from './tb/benches/index.ts';

export default defineConfig({ tops, benches, out: 'rtl' });
