// The regression report (out/regress/<timestamp>/index.html) as a browser shows it: headless
// Chromium renders it and the checks read the rendered DOM (after the page's own script ran)
// and a screenshot: the bench table with the trend against the previous run in the same
// folder, every run, the failures with their replay commands and the failure picture each
// failing run drew (the browser must have drawn it), the coverage summary with a working link
// to the line report. The earlier run, made with --pictures 0, shows the "no picture" cell;
// a renderer given to the report from elsewhere has its files copied in and drawn too.

import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finishRegression } from '../../../scripts/regress/finish.ts';
import { failurePictures, type FailedRun } from '../../../scripts/regress/pictures.ts';
import { loadRun, readResultsFile, storedRun } from '../../../scripts/regress/results-file.ts';
import { reportAsInputs } from '../../../coverage/report.ts';
import { renderedDom, screenshot } from './chromium.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-report-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function regress(...args: string[]): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', 'scripts/regress.ts', ...args], { stdio: ['ignore', 'pipe', 'ignore'] });
    let stdout = '';
    p.stdout.on('data', (b: Buffer) => { stdout += b.toString(); });
    p.on('error', reject);
    p.on('close', code => resolve({ code, stdout }));
  });
}

/** The rows of table `id` (the <tr> elements' inner HTML). */
function rows(dom: string, id: string): string[] {
  const table = new RegExp(`<table id="${id}">([\\s\\S]*?)</table>`).exec(dom)?.[1];
  if (table === undefined) throw new Error(`no table#${id} in the rendered page`);
  return [...table.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map(m => m[1]!);
}

const text = (html: string): string => html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim();

/** A stand-in for 13a's renderer: a small SVG naming the run, so the page has a real picture to draw. */
async function standInRenderer(run: FailedRun): Promise<string[]> {
  const file = path.join(fs.mkdtempSync(path.join(tmp, 'elsewhere-')), 'window.svg');
  fs.writeFileSync(file, `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="60"><rect width="320" height="60" fill="#eef"/>`
    + `<text x="8" y="35" font-size="14">${run.top}/${run.test} seed ${run.seed} cycle ${run.cycle}</text></svg>\n`);
  return [file];
}

describe('regression report in headless Chromium', () => {
  const parent = path.join(tmp, 'regress');
  const first = path.join(parent, '2000-01-01T00-00-00');
  const second = path.join(parent, '2000-01-01T00-10-00');
  const args = ['--top', 'selftest', '--test', 'pass', '--test', 'fail', '--seeds', '2', '--seed-base', '777', '--jobs', '2', '--coverage'];
  let dom = '';

  beforeAll(async () => {
    expect((await regress(...args, '--pictures', '0', '--out', first)).code).toBe(1);
    const r = await regress(...args, '--out', second);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`report ${path.join(second, 'index.html')}`);
    dom = renderedDom(path.join(second, 'index.html'));
  }, 600_000);

  it('renders (the page script ran) with the bench table and its trend against the previous run', () => {
    expect(dom).toMatch(/<body data-ready="yes">/);
    expect(text(/<h1>([\s\S]*?)<\/h1>/.exec(dom)![1]!)).toBe('nicgen regress: 2 passed, 2 failed');
    expect(dom).toContain(`Compared with the previous regression in this folder: <code>${path.basename(first)}</code>`);
    const benches = rows(dom, 'benches');
    expect(text(benches[0]!)).toMatch(/^bench runs passed failed errors cycles cycles\/s run time \(sum\) previous passed cycles\/s vs previous$/);
    expect(text(benches[1]!)).toMatch(/^selftest\/pass 2 2 0 0 4,004 [\d.]+ k cycles\/s [\d.]+ s 2\/2 = ×[\d.]+$/);
    expect(text(benches[2]!)).toMatch(/^selftest\/fail 2 0 2 0 /);
  });

  it('lists every run and every failure with its replay commands, log link and the picture the failing run drew', () => {
    const results = readResultsFile(second);
    const runs = rows(dom, 'runs').slice(1);
    expect(runs).toHaveLength(4);
    for (const [i, r] of results.runs.entries()) {
      expect(text(runs[i]!)).toMatch(new RegExp(`^${r.run.top}/${r.run.test} ${r.run.seed} ${r.status} `));
      expect(fs.existsSync(path.join(second, r.log))).toBe(true);
    }
    const failures = [...dom.matchAll(/<div class="failure" id="run-\d+">([\s\S]*?)<\/div><\/div>/g)].map(m => m[1]!);
    expect(failures).toHaveLength(2);
    for (const f of failures) {
      expect(f).toMatch(/replay: <code>\.\/bin\/nicgen sim selftest --test fail --seed \d+<\/code>/);
      expect(f).toMatch(/with waves: <code>\.\/bin\/nicgen sim selftest --test fail --seed \d+ --wave \S+\.fst --from \d+ --to \d+<\/code>/);
      const img = /<img class="failure-picture" src="(pictures\/selftest-fail-seed\d+\/failure\.svg)"[^>]*data-rendered="(\d+)x(\d+)"/.exec(f);
      expect(img, f).not.toBeNull();
      expect(Number(img![2])).toBeGreaterThan(100);
      expect(fs.existsSync(path.join(second, img![1]!))).toBe(true);
    }
    expect(rows(dom, 'matrix')).toHaveLength(3);
  });

  it('a run made without pictures shows the "no picture" cell, never a made-up one', () => {
    const page = renderedDom(path.join(first, 'index.html'));
    const failures = [...page.matchAll(/<div class="failure" id="run-\d+">([\s\S]*?)<\/div><\/div>/g)].map(m => m[1]!);
    expect(failures).toHaveLength(2);
    for (const f of failures) {
      expect(f).toContain('<p class="nopicture">no picture</p>');
      expect(f).not.toContain('<img');
    }
  });

  it('shows the coverage summary: per-module code coverage, cover points, functional bins, a line report that exists', () => {
    const code = rows(dom, 'code-coverage').map(text);
    expect(code[0]).toBe('module line branch toggle cover points');
    expect(code.slice(1).map(r => r.split(' ')[0])).toEqual(['selftest_skid', 'skid_buffer_width16', 'total']);
    expect(rows(dom, 'cover-points').map(text).slice(1)).toEqual([
      expect.stringMatching(/^selftest_skid\.streaming selftest_skid\.v:\d+ \d{4,}$/),
      expect.stringMatching(/^selftest_skid\.sink_stalls selftest_skid\.v:\d+ 0$/),
      expect.stringMatching(/^selftest_skid\.source_waits selftest_skid\.v:\d+ 0$/),
    ]);
    expect(text(/<p id="functional-total">([\s\S]*?)<\/p>/.exec(dom)![1]!)).toMatch(/^16 of 16 supported bins hit = \(0 bins unsupported/);
    const link = /<a id="line-report" href="([^"]+)">/.exec(dom)![1]!;
    expect(fs.readFileSync(path.join(second, link), 'utf8')).toContain('selftest_skid');
    expect(fs.existsSync(path.join(second, /<a id="uncovered" href="([^"]+)">/.exec(dom)![1]!))).toBe(true);
  });

  it('copies in and embeds the pictures of a renderer given from elsewhere, and the browser draws them', async () => {
    const file = readResultsFile(second);
    const results = file.runs.map(r => loadRun(second, r));
    const pictures = await failurePictures(second, results, 10, standInRenderer);
    expect(pictures.size).toBe(2);
    const withPictures = { ...file, runs: results.map(r => storedRun(r, pictures.get(r.run.order))) };
    await finishRegression({ root: process.cwd(), out: second, file: withPictures, results, coverage: reportAsInputs(path.join(second, 'coverage')), replay: 'make regress' });
    const page = renderedDom(path.join(second, 'index.html'));
    const imgs = [...page.matchAll(/<img class="failure-picture" src="([^"]+)"[^>]*data-rendered="([^"]+)"/g)];
    expect(imgs.map(m => [path.basename(m[1]!), m[2]])).toEqual([['window.svg', '320x60'], ['window.svg', '320x60']]);
    expect(page).not.toContain('no picture');
    const png = screenshot(path.join(second, 'index.html'), path.join(tmp, 'report.png'));
    expect(fs.statSync(png).size).toBeGreaterThan(20_000);
  });
});
