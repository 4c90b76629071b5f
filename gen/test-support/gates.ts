// The gates live in gen/emit/gates.ts (shared with `nicgen lint`); tests import them from here.
export * from '../emit/gates.ts';
