// When the loader (dist/server.js, see bootstrap.ts) makes the V8 code cache of the server bundle, on a start that
// has none it can use: once the path every client takes at start has run (the handshake, then the first tools/list
// answered), so that the functions it compiled are in the cache and the next start compiles none of them. Made
// before the handshake, the cache lacked the functions that read, check and answer requests, and each start compiled
// them as it answered its first ones (spawn -> first tools/list answer 12.6 ms sooner at the paired median with them
// in it). For a client that never lists the tools, the loader makes it a while after the handshake, or as the
// process exits; a process that never answered an initialize (--version, a configuration that stops it, a client
// that never came) makes none: V8 would take a cache that lacks the server's own start for good.
//
// This module is small on purpose: the loader bundles it.

const POINTS = Symbol.for('notesapp.codeCachePoints');

/** What the loader does at each point (see whenStartupPath). */
export interface CodeCachePoints {
  /** The first initialize is answered: the fallbacks may make the cache from now on. */
  handshakeDone: () => void;
  /** The first tools/list is answered: the cache is made now (called in a later turn). */
  startupPathRun: () => void;
}

/** Called by the loader, before it runs the bundle, when it has a cache to make. */
export function whenStartupPath(points: CodeCachePoints): void {
  (globalThis as Record<symbol, unknown>)[POINTS] = points;
}

function points(): CodeCachePoints | undefined {
  return (globalThis as Record<symbol, CodeCachePoints | undefined>)[POINTS];
}

/** Called by the server as it answers an initialize. */
export function handshakeDone(): void {
  points()?.handshakeDone();
}

/** Called by the server as it answers a tools/list: the loader makes its cache in a later turn, once. */
export function startupPathRun(): void {
  const found = points();
  if (!found) return;
  delete (globalThis as Record<symbol, unknown>)[POINTS];
  setImmediate(found.startupPathRun);
}
