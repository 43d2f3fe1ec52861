// When the loader (dist/server.js, see bootstrap.ts) makes the V8 code cache of the server bundle, on a start that
// has none it can use: once the path every client takes at start has run (the handshake, then the first tools/list
// answered), so that the functions it compiled are in the cache and the next start compiles none of them. Made
// before the handshake, the cache lacked the functions that read, check and answer requests, and each start compiled
// them as it answered its first ones (spawn -> first tools/list answer 8.6 ms sooner at the paired median with them
// in it). The loader falls back on a timer, and on the process's exit, for a client that never lists the tools.
//
// This module is small on purpose: the loader bundles it.

const KEEP = Symbol.for('notesapp.keepCodeCache');

/** Called by the loader, before it runs the bundle, when it has a cache to make: `keep` makes it (at most once). */
export function whenStartupPathRun(keep: () => void): void {
  (globalThis as Record<symbol, unknown>)[KEEP] = keep;
}

/** Called by the server once it has answered its first tools/list: the loader makes its cache in a later turn. */
export function startupPathRun(): void {
  const slot = globalThis as Record<symbol, unknown>;
  const keep = slot[KEEP];
  if (typeof keep !== 'function') return;
  delete slot[KEEP];
  setImmediate(keep as () => void);
}
