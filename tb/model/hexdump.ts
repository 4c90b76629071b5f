// Hex dumps for failure messages: 16 bytes a line, addressed, and a before/after view that marks
// the bytes that differ, so "memory changed at 0x..." shows what changed without a debugger.

function hex(n: number): string { return n.toString(16).padStart(2, '0'); }

export function formatAddress(a: bigint): string {
  return `0x${a.toString(16).padStart(16, '0')}`;
}

/** Lines of `addr: xx xx ...` for `bytes` starting at `base`. */
export function hexDump(bytes: Uint8Array, base: bigint): string {
  const lines: string[] = [];
  for (let o = 0; o < bytes.length; o += 16) {
    const row = [...bytes.subarray(o, o + 16)].map(hex).join(' ');
    lines.push(`${formatAddress(base + BigInt(o))}: ${row}`);
  }
  return lines.join('\n');
}

/** Expected and actual side by side, 16-byte lines, differing bytes marked with `^` below. */
export function hexDiff(expected: Uint8Array, actual: Uint8Array, base: bigint): string {
  const lines: string[] = [];
  const n = Math.max(expected.length, actual.length);
  for (let o = 0; o < n; o += 16) {
    const e = [...expected.subarray(o, o + 16)];
    const a = [...actual.subarray(o, o + 16)];
    const addr = formatAddress(base + BigInt(o));
    lines.push(`${addr} expected: ${e.map(hex).join(' ')}`);
    lines.push(`${' '.repeat(addr.length)}   actual: ${a.map(hex).join(' ')}`);
    if (e.some((b, i) => b !== a[i]) || e.length !== a.length) {
      const marks = Array.from({ length: Math.max(e.length, a.length) }, (_, i) => (e[i] === a[i] ? '  ' : '^^')).join(' ');
      lines.push(`${' '.repeat(addr.length)}           ${marks.trimEnd()}`);
    }
  }
  return lines.join('\n');
}
