// JUnit XML for CI: one <testsuite> per top, one <testcase> per (bench, seed).
//
// Run output is arbitrary text, so everything is escaped rather than wrapped in CDATA (a
// CDATA section cannot contain `]]>`), terminal escape sequences are dropped, and characters
// XML 1.0 forbids (NUL and other control characters, lone surrogates) are removed: one
// stray byte would otherwise make the whole report unreadable to the CI server.

import type { RunResult } from './outcome.ts';

export interface JUnitMeta {
  readonly seedBase: number;
  readonly seedsPerBench: number;
  readonly timestamp: Date;
  readonly hostname: string;
}

const ansi = /\x1b\[[0-?]*[ -/]*[@-~]/g;
// Allowed: tab, LF, CR, U+0020..U+D7FF, U+E000..U+FFFD, U+10000..U+10FFFF. With the u flag a
// lone surrogate is one code point, outside every allowed range.
const notXmlChar = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

function clean(text: string): string {
  return text.replace(ansi, '').replace(notXmlChar, '');
}

export function xmlText(text: string): string {
  return clean(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Attribute values: also quotes, and whitespace as references so parsers keep line breaks. */
export function xmlAttr(text: string): string {
  return xmlText(text).replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}

function attrs(pairs: Record<string, string | number>): string {
  return Object.entries(pairs).map(([k, v]) => ` ${k}="${xmlAttr(String(v))}"`).join('');
}

const secs = (s: number): string => s.toFixed(3);

function testcase(r: RunResult): string {
  const head = `    <testcase${attrs({ classname: r.run.top, name: `${r.run.test} seed=${r.run.seed}`, time: secs(r.seconds) })}>`;
  const lines = [head];
  if (r.status === 'failed') {
    lines.push(`      <failure${attrs({ message: r.headline, type: 'TestFailure' })}>${xmlText(r.detail)}</failure>`);
  } else if (r.status === 'error') {
    lines.push(`      <error${attrs({ message: r.headline, type: 'RunError' })}>${xmlText(r.detail)}</error>`);
  }
  lines.push(`      <system-out>${xmlText(r.output)}</system-out>`, '    </testcase>');
  return lines.join('\n');
}

function count(rs: readonly RunResult[]): { tests: number; failures: number; errors: number; time: string } {
  return {
    tests: rs.length,
    failures: rs.filter(r => r.status === 'failed').length,
    errors: rs.filter(r => r.status === 'error').length,
    time: secs(rs.reduce((t, r) => t + r.seconds, 0)),
  };
}

/** One suite per top in order of first appearance; cases in the order given. */
export function junitXml(results: readonly RunResult[], meta: JUnitMeta): string {
  const tops = [...new Set(results.map(r => r.run.top))];
  const stamp = meta.timestamp.toISOString().replace(/\.\d+Z$/, '');
  const out = ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites${attrs({ name: 'nicgen regress', ...count(results) })}>`];
  tops.forEach((top, id) => {
    const rs = results.filter(r => r.run.top === top);
    out.push(`  <testsuite${attrs({ name: top, id, ...count(rs), skipped: 0, timestamp: stamp, hostname: meta.hostname })}>`);
    out.push('    <properties>');
    out.push(`      <property${attrs({ name: 'seed-base', value: meta.seedBase })}/>`);
    out.push(`      <property${attrs({ name: 'seeds-per-bench', value: meta.seedsPerBench })}/>`);
    out.push('    </properties>');
    for (const r of rs) out.push(testcase(r));
    out.push('  </testsuite>');
  });
  out.push('</testsuites>', '');
  return out.join('\n');
}
