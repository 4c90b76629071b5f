// Frames as the framing tests hand them around, and the byte comparison their failures print.

/** A frame's bytes and the tuser value that goes with it (MAC bad flag, or length). */
export interface Frame { bytes: Uint8Array; user: number }

/** First differing byte of two frames, as a readable message (or null when equal). */
export function diffBytes(got: Uint8Array, want: Uint8Array, B: number): string | null {
  const n = Math.max(got.length, want.length);
  for (let i = 0; i < n; i++) {
    if (got[i] !== want[i]) {
      const ctx = (a: Uint8Array) => Buffer.from(a.subarray(Math.max(0, i - 4), i + 8)).toString('hex');
      return `byte ${i} (beat ${Math.floor(i / B)}, lane ${i % B}): got ${got[i]?.toString(16) ?? 'none'} want ${want[i]?.toString(16) ?? 'none'}; lengths ${got.length}/${want.length}; got ..${ctx(got)}.. want ..${ctx(want)}..`;
    }
  }
  return null;
}
