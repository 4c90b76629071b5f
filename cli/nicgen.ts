// The nicgen command line.

import * as path from 'node:path';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { DesignErrors, DslError } from '../gen/hdl/errors.ts';
import { UsageError as RegressUsageError } from '../scripts/regress/args.ts';
import { regressMain } from '../scripts/regress/main.ts';
import { currentProject, nicgenBin } from './config.ts';
import { genCommand } from './gen-command.ts';
import { initCommand } from './init-command.ts';
import { lintCommand } from './lint-command.ts';
import { modulesCommand } from './modules-command.ts';
import { coverageCommand } from './coverage-print.ts';
import { regressMergeCommand } from './regress-command.ts';
import { replayCommand } from './replay-command.ts';
import { simCommand } from './sim-command.ts';
import { synthCommand } from './synth-command.ts';
import { waveCommand } from './wave-command.ts';
import { UsageError } from './usage-error.ts';
import { cacheRoot } from '../sim/cache.ts';

/** `nicgen regress ...`: the regression runner's own options (see `nicgen regress --help`). */
async function regress(argv: readonly string[]): Promise<number> {
  const p = await currentProject();
  try {
    return await regressMain(argv, { root: p.root, benches: p.benches, configFile: p.configFile, bin: nicgenBin, command: p.command });
  } catch (err) {
    if (err instanceof RegressUsageError) throw new UsageError(`regress: ${err.message}`);
    throw err;
  }
}

async function main(argv: string[]): Promise<number> {
  // Passed through whole: the regression runner parses its own options (shared with make
  // regress); `nicgen regress merge` is a command of its own.
  if (argv[0] === 'regress' && argv[1] !== 'merge') return regress(argv.slice(1));
  let code = 0;
  await yargs(argv)
    .scriptName('nicgen')
    .usage('$0 <command> [options]')
    .command('init <dir>', 'make a new nicgen project in DIR: design, bench, config, README (never overwrites a file)', y => y
      .positional('dir', { type: 'string', demandOption: true, describe: 'folder of the new project (created if missing)' })
      .option('name', { type: 'string', describe: 'package name (default: the folder name)' })
      .option('nicgen', { type: 'string', describe: 'what package.json depends on for nicgen: a version, a path or a tarball (default: this nicgen)' }),
    async a => { code = await initCommand({ dir: a.dir, name: a.name, nicgen: a.nicgen }); })
    .command('gen [top]', 'write modules, filelists, port manifests and FuseSoC cores', y => y
      .positional('top', { type: 'string', describe: 'only this top: a definition name (nic_top, from its defaults) or an emitted name (sync_fifo_width64)' })
      .option('set', { type: 'string', array: true, nargs: 1, default: [] as string[], describe: 'change a parameter of the top: --set numQp=8 (repeat for more); checked against its allowed range' })
      .option('out', { type: 'string', describe: 'output folder (default: `out` of nicgen.config.ts, else rtl/; for the project\'s own tops only: required with a top, --set or --tops)' })
      .option('check', { type: 'boolean', default: false, describe: 'only report whether the folder is out of date (exit 1 if so)' })
      .option('tops', { type: 'string', describe: 'a TS module exporting `tops` to emit instead of the tops of nicgen.config.ts' })
      .epilog('nicgen writes only into the output folder, and removes only files it wrote there and nobody changed since (listed in its .nicgen-files.json); every other file there is yours and stays. Your design files are type-checked (tsc) and checked for JavaScript operators on hardware values first (NICGEN_TYPECHECK=0 skips that).')
      .example('$0 gen nic_top --set dataWidth=512 --set numQp=8 --out build/nic512', 'one configured NIC: Verilog, nic_top_*.f, .ports.json and a FuseSoC .core in build/nic512'),
    async a => { code = await genCommand({ out: a.out, check: a.check, tops: a.tops, top: a.top, set: a.set, argv }); })
    .command('lint', 'run verilator -Wall, iverilog and yosys on every emitted module', y => y
      .option('top', { type: 'string', array: true, default: [] as string[], describe: 'only these tops (every module in them) or modules (just those)' })
      .option('jobs', { type: 'number', default: 2, describe: 'modules checked at once' })
      .option('verbose', { type: 'boolean', default: false, describe: 'print tool output for passing modules too' })
      .option('tops', { type: 'string', describe: 'a TS module exporting `tops` to check instead of the tops of nicgen.config.ts' }),
    async a => { code = await lintCommand({ tops: a.top, jobs: a.jobs, verbose: a.verbose, ...(a.tops ? { topsFile: a.tops } : {}) }); })
    .command('synth', 'resources and worst paths of a module or a whole top under the synthesis proxies (docs/synth.md)', y => y
      .option('top', { type: 'string', describe: 'a top (its every module, then the whole top) or one module' })
      .option('set', { type: 'string', array: true, default: [] as string[], describe: 'generator parameter of the top, NAME=VALUE (repeatable), e.g. --set numQp=8' })
      .option('target', { type: 'string', default: 'xcup', describe: 'xcup: resources + proxies (a), (b\'), (b); ice40: resources + routed Fmax (c); generic: LUT6 + proxy (b)' })
      .option('json', { type: 'string', describe: 'also write the report as JSON to this file' })
      .option('whole', { type: 'boolean', default: false, describe: 'only the whole top, no row per module inside it' })
      .option('jobs', { type: 'number', default: 2, describe: 'synthesis runs at once' })
      .option('cache', { type: 'string', describe: 'folder of cached tool outputs (default <project>/.cache/synth, or $NICGEN_CACHE/synth)' })
      .option('tops', { type: 'string', describe: 'a TS module exporting `tops` instead of the tops of nicgen.config.ts' }),
    async a => {
      code = await synthCommand({ top: a.top, set: a.set, target: a.target, json: a.json, jobs: a.jobs, whole: a.whole, cacheDir: a.cache ?? path.join(cacheRoot(), 'synth'), ...(a.tops ? { topsFile: a.tops } : {}) });
    })
    .command('modules', 'print a table of the emitted modules', y => y
      .option('tops', { type: 'string', describe: 'a TS module exporting `tops` instead of the tops of nicgen.config.ts' }),
    async a => { code = await modulesCommand(a.tops); })
    .command('sim [top]', 'run a named test bench of nicgen.config.ts on its Verilator model (see --list)', y => y
      .positional('top', { type: 'string', describe: 'the DSL module the bench tests (e.g. sync_fifo)' })
      .option('test', { type: 'string', describe: 'bench name within the top' })
      .option('list', { type: 'boolean', default: false, describe: 'list every top and its benches' })
      .option('seed', { type: 'number', describe: 'RNG seed (default NICGEN_SEED, else random; printed either way)' })
      .option('wave', { type: 'string', describe: 'dump waves (FST) to this file' })
      .option('from', { type: 'number', describe: 'first cycle in the wave dump' })
      .option('to', { type: 'number', describe: 'cycle at which the wave dump stops' })
      .option('pcap', { type: 'string', describe: 'write the link\'s frames to this pcap file (benches with a link: nic_pair; others ignore it)' })
      .option('max-cycles', { type: 'number', describe: 'fail if the bench runs longer (default: the bench\'s own budget)' })
      .option('period', { type: 'number', describe: 'clock period in ns: cycle N is at N x period in the dump (default 4, 250 MHz)' })
      .option('pictures', { type: 'boolean', default: true, describe: 'on a failure, re-run the seed with waves of the cause and draw it (--no-pictures: off)' })
      .option('coverage', { type: 'boolean', default: false, describe: 'Verilator line, branch and cover-point coverage (a separate cached model) plus functional coverage; prints the report' })
      .option('coverage-toggle', { type: 'boolean', default: false, describe: 'toggle coverage too (implies --coverage; another model, much slower per cycle)' })
      .option('coverage-dir', { type: 'string', describe: 'the run\'s coverage folder (default out/coverage/<top>-<test>-<seed>); alone: functional coverage only' })
      .option('coverage-report', { type: 'boolean', default: true, describe: 'build and print this run\'s coverage report (--no-coverage-report: only write the data)' }),
    async a => {
      code = await simCommand({
        top: a.top, test: a.test, list: a.list, seed: a.seed, wave: a.wave, from: a.from, to: a.to, maxCycles: a.maxCycles, pcap: a.pcap,
        periodNs: a.period, pictures: a.pictures,
        coverage: a.coverage, coverageToggle: a.coverageToggle, coverageDir: a.coverageDir, coverageReport: a.coverageReport,
      });
    })
    .command('regress', 'many seeds of every bench of nicgen.config.ts in parallel: JUnit XML, HTML report, coverage (options: nicgen regress --help; docs/regress.md)', y => y
      .command('merge <dirs..>', 'merge the folders of the shards of one regression (make regress REGRESS_ARGS=\'--seed-base S --shard K/N\') into one', z => z
        .positional('dirs', { type: 'string', array: true, describe: 'the shards\' results folders, all N of them' })
        .option('out', { type: 'string', describe: 'a new folder for the merged results (default out/regress/merged-<timestamp>)' }),
      async a => { code = await regressMergeCommand(a.dirs ?? [], a.out); })
      .demandCommand(1, 'name a regress command: merge')
      .strict())
    .command('coverage <dirs..>', 'merge the coverage runs below these folders: per-module table, line report (HTML), functional holes', y => y
      .positional('dirs', { type: 'string', array: true, describe: 'folders holding runs (NICGEN_COVERAGE=DIR, nicgen sim --coverage-dir, out/regress/<run>/coverage/runs)' })
      .option('out', { type: 'string', describe: 'report folder (default <first DIR>/report)' }),
    async a => { code = await coverageCommand(a.dirs ?? [], a.out); })
    .command('replay', 'feed captured RoCEv2 frames to one nic_top and judge each (docs/replay.md)', y => y
      .option('scenario', { type: 'string', describe: 'JSON scenario: the NIC, its QPs and MRs (docs/replay.md)' })
      .option('in', { type: 'string', describe: 'capture to replay (pcap or pcapng; Ethernet or Linux cooked SLL/SLL2)' })
      .option('fcs', { type: 'boolean', default: false, describe: 'every captured frame ends with a 4-byte FCS: strip it (pcapng if_fcslen says so by itself)' })
      .option('burst', { type: 'string', describe: 'feed these frames back to back, e.g. 1-3,7-9 or all (default: one at a time)' })
      .option('out', { type: 'string', describe: 'write the frames the NIC transmits to this pcap' })
      .option('dump', { type: 'string', describe: 'write each MR\'s final contents to this folder (mr-<slot>.bin)' })
      .option('expect-all-accepted', { type: 'boolean', default: false, describe: 'exit 1 if any frame is rejected (CI)' })
      .option('rejected-only', { type: 'boolean', default: false, describe: 'list only the rejected frames' })
      .option('settle', { type: 'number', describe: 'idle cycles that end a frame (default 64)' })
      .option('frame-timeout', { type: 'number', describe: 'cycles one frame may take at most (default 200000)' })
      .option('wave', { type: 'string', describe: 'dump waves (FST) of the whole replay to this file' })
      .option('progress', { type: 'number', describe: 'seconds between progress lines on stderr (default 5; 0.25 on a terminal)' }),
    async a => {
      code = await replayCommand({
        scenario: a.scenario, in: a.in, out: a.out, dump: a.dump, expectAllAccepted: a.expectAllAccepted, rejectedOnly: a.rejectedOnly,
        settle: a.settle, frameTimeout: a.frameTimeout, wave: a.wave, progress: a.progress, fcs: a.fcs, burst: a.burst,
      });
    })
    .command('wave [file]', 'open a wave dump in GTKWave with the savefile nicgen wrote beside it (docs/waves.md)', y => y
      .positional('file', { type: 'string', describe: 'the dump (.fst or .vcd) of nicgen sim --wave, NICGEN_WAVE or a failure re-run' })
      .option('savefile', { type: 'string', describe: 'another savefile (default: FILE with .gtkw)' })
      .option('screenshot', { type: 'string', describe: 'write a PNG of GTKWave\'s view instead (headless, Xvfb)' }),
    async a => { code = await waveCommand({ file: a.file, savefile: a.savefile, screenshot: a.screenshot }); })
    .demandCommand(1, 'name a command (see --help)')
    .strict()
    .help()
    .fail((msg, err) => { throw err ?? new UsageError(msg); })
    .parseAsync();
  return code;
}

// `nicgen sim --list | head`: a closed pipe ends the listing, not with a stack trace.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

main(hideBin(process.argv)).then(code => { process.exitCode = code; }, (err: unknown) => {
  if (err instanceof UsageError) { console.error(`nicgen: ${err.message}`); process.exitCode = 2; return; }
  if (err instanceof DesignErrors || err instanceof DslError) { console.error(err.message); process.exitCode = 1; return; }
  console.error(err);
  process.exitCode = 1;
});
