// index.html of a regression folder: one static page (no network, no external files but the
// ones in the folder) with
//   - the verdict, seed base and the arguments that replay the regression;
//   - a table per bench (runs, passed, failed, errors, cycles/s, time) with the change since
//     the previous regression in the same parent folder;
//   - the coverage summary: code coverage per module with links to the line report and the
//     list of points never hit, functional coverage with its holes and each bin's first hit;
//   - every failure: message, replay commands with and without waves, log, pictures inline
//     (or "no picture");
//   - benches x seeds: every run's verdict, time and cycles/s, linked to its log.
// A few lines of script mark each picture once the browser has drawn it (data-rendered), so
// a headless check can tell a broken image from a shown one.

import * as path from 'node:path';
import { percent } from '../../coverage/code-report.ts';
import type { FunctionalData } from '../../coverage/functional.ts';
import type { CoverageSummary } from '../../coverage/report.ts';
import { POINT_KINDS } from '../../coverage/verilator-data.ts';
import { formatRate } from '../../cli/sim-progress.ts';
import { regressAgain, replayCommand, waveReplayCommand } from './report.ts';
import type { RegressFile, StoredRun } from './results-file.ts';
import { benchStats, type BenchStats, type Previous } from './trends.ts';

export interface ReportInput {
  readonly file: RegressFile;
  readonly coverage: CoverageSummary | undefined;
  readonly functional: FunctionalData | undefined;
  readonly previous: Previous | undefined;
  /** `make regress REGRESS_ARGS='...'` (`npx nicgen regress ...`) that replays the regression. */
  readonly replay: string;
  /** The wave folder as typed from the project root (for the wave replay commands). */
  readonly waveDir: string;
  /** How the nicgen command is typed in this project (default `./bin/nicgen`). */
  readonly command?: string;
}

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
/** A relative link inside the folder (path segments escaped, separators kept). */
const href = (p: string): string => esc(p.split(path.sep).map(encodeURIComponent).join('/'));
const ansi = /\x1b\[[0-?]*[ -/]*[@-~]/g;
const secs = (s: number): string => (s >= 100 ? `${s.toFixed(0)} s` : `${s.toFixed(1)} s`);

const css = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.6em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: .5em 0; } td, th { border: 1px solid #ccc; padding: 2px 6px; text-align: right; }
th { background: #f3f3f3; } td.l, th.l { text-align: left; }
.pass { background: #d9f2d9; } .fail { background: #f7d4d4; } .error { background: #f7e3c2; } .none { color: #999; }
.verdict-pass { color: #176317; } .verdict-fail { color: #a11; }
.up { color: #176317; } .down { color: #a11; }
pre { background: #f6f6f6; padding: .5em; overflow-x: auto; max-height: 20em; }
code { background: #f3f3f3; padding: 0 3px; }
.failure { border: 1px solid #e0b4b4; padding: .5em 1em; margin: 1em 0; }
.picture img { max-width: 100%; border: 1px solid #ccc; }
.nopicture { color: #777; font-style: italic; }
td.cell { width: 1.2em; padding: 0; text-align: center; } td.cell a { display: block; color: inherit; text-decoration: none; }
`;

const markRendered = `
for (const img of document.querySelectorAll('img.failure-picture')) {
  const mark = () => img.setAttribute('data-rendered', img.naturalWidth > 0 ? img.naturalWidth + 'x' + img.naturalHeight : 'broken');
  if (img.complete) mark(); else { img.addEventListener('load', mark); img.addEventListener('error', mark); }
}
document.body.setAttribute('data-ready', 'yes');
`;

function delta(now: number | undefined, before: number | undefined, fmt: (x: number) => string, higherIsBetter = true): string {
  if (now === undefined || before === undefined) return '';
  const d = now - before;
  if (Math.abs(d) < 1e-9) return '<span class="none">=</span>';
  const good = d > 0 === higherIsBetter;
  return `<span class="${good ? 'up' : 'down'}">${d > 0 ? '+' : '−'}${fmt(Math.abs(d))}</span>`;
}

function benchTableHtml(stats: readonly BenchStats[], prev: Previous | undefined): string {
  const rows = stats.map(s => {
    const p = prev?.benches.get(s.bench);
    const rateRatio = s.rate !== undefined && p?.rate !== undefined ? s.rate / p.rate : undefined;
    const cls = s.failed + s.errors > 0 ? 'fail' : 'pass';
    return `<tr class="bench-row ${cls}"><td class="l">${esc(s.bench)}</td><td>${s.runs}</td><td>${s.passed}</td><td>${s.failed}</td><td>${s.errors}</td>`
      + `<td>${s.cycles.toLocaleString('en-US')}</td><td>${s.rate !== undefined ? esc(formatRate(s.rate)) : '-'}</td><td>${secs(s.seconds)}</td>`
      + (prev ? `<td>${p ? `${p.passed}/${p.runs} ${delta(s.passed / s.runs, p.passed / p.runs, x => `${(100 * x).toFixed(0)} %`)}` : '<span class="none">new</span>'}</td>`
        + `<td>${rateRatio !== undefined ? `<span class="${rateRatio >= 1 ? 'up' : 'down'}">×${rateRatio.toFixed(2)}</span>` : '-'}</td>` : '')
      + '</tr>';
  });
  const head = ['bench', 'runs', 'passed', 'failed', 'errors', 'cycles', 'cycles/s', 'run time (sum)', ...(prev ? ['previous passed', 'cycles/s vs previous'] : [])];
  return `<table id="benches"><tr>${head.map((h, i) => `<th${i === 0 ? ' class="l"' : ''}>${h}</th>`).join('')}</tr>${rows.join('')}</table>`;
}

function codeCoverageHtml(c: CoverageSummary, prev: CoverageSummary | undefined): string {
  const code = c.code!;
  const cell = (k: { hit: number; total: number }): string => (k.total === 0 ? '-' : `${k.hit}/${k.total} (${percent(k)})`);
  const kinds = POINT_KINDS.map(k => (k === 'user' ? 'cover points' : k));
  const rows = code.modules.map(m => `<tr><td class="l">${esc(m.module)}</td>${POINT_KINDS.map(k => `<td>${cell(m.kinds[k])}</td>`).join('')}</tr>`);
  const totals = POINT_KINDS.map(k => {
    const t = code.total[k], p = prev?.code?.total[k];
    const frac = (x: { hit: number; total: number }): number | undefined => (x.total ? x.hit / x.total : undefined);
    return `<td><b>${cell(t)}</b> ${p ? delta(frac(t), frac(p), x => `${(100 * x).toFixed(1)} %`) : ''}</td>`;
  });
  const covers = code.covers.length
    ? `<p>Cover points (m.cover):</p><table id="cover-points"><tr><th class="l">cover point</th><th class="l">at</th><th>hits</th></tr>${code.covers.map(x => `<tr class="${x.count ? 'pass' : 'fail'}"><td class="l">${esc(`${x.module}.${x.label}`)}</td><td class="l">${esc(`${x.file}:${x.line}`)}</td><td>${x.count}</td></tr>`).join('')}</table>`
    : '';
  return `<h3>Code coverage (Verilator)</h3>
<p>Line report: <a id="line-report" href="coverage/${href(c.html ?? 'html/index.html')}">coverage/${esc(c.html ?? 'html/index.html')}</a> ·
points never hit (${code.uncoveredCount}): <a id="uncovered" href="coverage/uncovered.txt">coverage/uncovered.txt</a></p>
<table id="code-coverage"><tr><th class="l">module</th>${kinds.map(k => `<th>${k}</th>`).join('')}</tr>${rows.join('')}<tr><td class="l"><b>total</b></td>${totals.join('')}</tr></table>${covers}`;
}

function functionalHtml(c: CoverageSummary, data: FunctionalData | undefined, prev: CoverageSummary | undefined): string {
  const f = c.functional!;
  const holes = f.holes.length
    ? `<ul id="holes">${f.holes.map(h => `<li><code>${esc(h.group)}</code>: ${esc(h.bin)}</li>`).join('')}</ul>`
    : '<p id="holes">No holes: every supported bin was hit.</p>';
  const groups = (data?.groups ?? []).map(g => {
    const rows = g.bins.map(b => {
      const cls = b.unsupported !== undefined ? 'none' : b.count > 0 ? 'pass' : 'fail';
      const first = b.first ? `${esc(`${b.first.top}/${b.first.test}`)} seed ${b.first.seed}` : b.unsupported !== undefined ? `unsupported: ${esc(b.unsupported)}` : '<b>never hit</b>';
      return `<tr class="${cls}"><td class="l">${esc(b.id)}</td><td>${b.count}</td><td class="l">${first}</td></tr>`;
    });
    return `<details><summary><code>${esc(g.name)}</code>: ${g.bins.filter(b => b.count > 0).length} of ${g.bins.length} bins hit — ${esc(g.about)}</summary>
<table><tr><th class="l">bin</th><th>hits</th><th class="l">first hit</th></tr>${rows.join('')}</table></details>`;
  });
  const was = prev?.functional ? ` ${delta(f.hit, prev.functional.hit, x => `${x} bins`)}` : '';
  return `<h3>Functional coverage</h3>
<p id="functional-total"><b>${f.hit} of ${f.supported}</b> supported bins hit${was} (${f.bins - f.supported} bins unsupported by the design, each with its reason) ·
<a href="coverage/functional.json">coverage/functional.json</a> · <a href="coverage/holes.txt">coverage/holes.txt</a></p>
${f.holes.length ? `<p>Never hit (${f.holes.length}):</p>` : ''}${holes}
<p>First hit of each bin (in plan order: bench, then seed index):</p>${groups.join('\n')}`;
}

function coverageHtml(input: ReportInput): string {
  const c = input.coverage;
  if (!c || (!c.code && !c.functional)) {
    return '<section id="coverage"><h2>Coverage</h2><p>No coverage was collected (no cover groups in these benches; code coverage needs --coverage).</p></section>';
  }
  const prev = input.previous?.coverage;
  return `<section id="coverage"><h2>Coverage</h2>
${c.code ? codeCoverageHtml(c, prev) : `<p>Code coverage was off (${esc(regressAgain(input.command ?? './bin/nicgen', '--coverage ...'))} turns it on).</p>`}
${c.functional ? functionalHtml(c, input.functional, prev) : ''}</section>`;
}

function failureHtml(r: StoredRun, input: ReportInput): string {
  const pictures = r.pictures && r.pictures.length
    ? r.pictures.map(p => `<div class="picture"><img class="failure-picture" src="${href(p)}" alt="failure picture ${esc(path.basename(p))}"><div>${esc(p)}</div></div>`).join('')
    : '<p class="nopicture">no picture</p>';
  const waves = r.failCycle !== undefined ? `<br>with waves: <code>${esc(waveReplayCommand(r.run, r.failCycle, input.waveDir, input.command))}</code>` : '';
  return `<div class="failure" id="run-${r.run.order}"><h3 class="verdict-fail">${r.status === 'failed' ? 'FAIL' : 'ERROR'} ${esc(`${r.run.top}/${r.run.test}`)} seed ${r.run.seed}</h3>
<p>${esc(r.headline.replace(ansi, ''))}</p>
<p>replay: <code>${esc(replayCommand(r.run, input.command))}</code>${waves}<br>log: <a href="${href(r.log)}">${esc(r.log)}</a></p>
<pre>${esc(r.detail.replace(ansi, ''))}</pre><div class="pictures">${pictures}</div></div>`;
}

function matrixHtml(file: RegressFile): string {
  const byBench = new Map<string, Map<number, StoredRun>>();
  for (const r of file.runs) {
    const k = `${r.run.top}/${r.run.test}`;
    if (!byBench.has(k)) byBench.set(k, new Map());
    byBench.get(k)!.set(r.run.index, r);
  }
  const cols = file.seedsPerBench;
  const head = `<tr><th class="l">bench \\ seed index</th>${Array.from({ length: cols }, (_, i) => `<th>${i}</th>`).join('')}</tr>`;
  const rows = file.benches.map(b => {
    const runs = byBench.get(`${b.top}/${b.test}`);
    const cells = Array.from({ length: cols }, (_, i) => {
      const r = runs?.get(i);
      if (!r) return '<td class="cell none">·</td>';
      const cls = r.status === 'passed' ? 'pass' : r.status === 'failed' ? 'fail' : 'error';
      const rate = r.simSeconds ? `, ${formatRate(r.cycles / r.simSeconds)}` : '';
      return `<td class="cell ${cls}"><a href="${href(r.log)}" title="${esc(`seed ${r.run.seed}: ${r.status}, ${secs(r.seconds)}${rate}`)}">${r.status === 'passed' ? '✓' : '✗'}</a></td>`;
    });
    return `<tr><td class="l">${esc(`${b.top}/${b.test}`)}</td>${cells.join('')}</tr>`;
  });
  return `<table id="matrix">${head}${rows.join('')}</table>`;
}

function runsTableHtml(file: RegressFile): string {
  const rows = [...file.runs].sort((a, b) => a.run.order - b.run.order).map(r => {
    const cls = r.status === 'passed' ? 'pass' : r.status === 'failed' ? 'fail' : 'error';
    const rate = r.simSeconds ? formatRate(r.cycles / r.simSeconds) : '-';
    return `<tr class="run ${cls}"><td class="l">${esc(`${r.run.top}/${r.run.test}`)}</td><td>${r.run.seed}</td><td class="l">${r.status}</td><td>${secs(r.seconds)}</td>`
      + `<td>${r.cycles.toLocaleString('en-US')}</td><td>${esc(rate)}</td><td class="l"><a href="${href(r.log)}">log</a>${r.status !== 'passed' ? ` · <a href="#run-${r.run.order}">failure</a>` : ''}</td></tr>`;
  });
  return `<table id="runs"><tr><th class="l">bench</th><th>seed</th><th class="l">verdict</th><th>duration</th><th>cycles</th><th>cycles/s</th><th class="l">files</th></tr>${rows.join('')}</table>`;
}

export function reportHtml(input: ReportInput): string {
  const f = input.file;
  const passed = f.runs.filter(r => r.status === 'passed').length;
  const bad = f.runs.filter(r => r.status !== 'passed');
  const stats = benchStats(f.benches, f.runs);
  const scope = f.shard ? `shard ${f.shard.k} of ${f.shard.n}` : f.mergedFrom ? `merged from ${f.mergedFrom.length} shards` : 'whole plan';
  const prev = input.previous
    ? `Compared with the previous regression in this folder: <code>${esc(path.basename(input.previous.dir))}</code> (started ${esc(input.previous.file.started)}).`
    : 'No earlier regression in this folder to compare with.';
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>nicgen regress ${esc(f.started)}</title><style>${css}</style></head>
<body>
<h1>nicgen regress: <span id="verdict" class="${bad.length ? 'verdict-fail' : 'verdict-pass'}">${passed} passed, ${f.runs.length - passed} failed</span></h1>
<p>${f.benches.length} benches × ${f.seedsPerBench} seeds, ${esc(scope)}: ${f.runs.length} of ${f.planned} planned runs${f.interrupted ? ' (interrupted)' : ''}, seed base ${f.seedBase},
started ${esc(f.started)} on ${esc(f.hostname)}, ${secs(f.elapsed)} wall.<br>
Replay: <code>${esc(input.replay)}</code><br>${prev}</p>
<h2>Benches</h2>${benchTableHtml(stats, input.previous)}
${coverageHtml(input)}
<section id="failures"><h2>Failures and errors (${bad.length})</h2>${bad.length ? bad.map(r => failureHtml(r, input)).join('\n') : '<p>None.</p>'}</section>
<h2>Benches × seeds</h2>${matrixHtml(f)}
<h2>Every run</h2>${runsTableHtml(f)}
<script>${markRendered}</script>
</body></html>
`;
}
