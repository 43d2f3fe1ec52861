// dist/server.js: loads the server bundle (dist/server-core.js) through a V8 code cache, so later starts skip
// compiling two megabytes of JavaScript. Any cache problem falls back to a plain require. Meanwhile the first text
// worker thread boots on another core (see worker-boot.ts) and lists the workspace (see prelist.ts).
import { isAscii } from 'node:buffer';
import fs from 'node:fs';
import Module from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import { cacheDir } from '../src/core/workspace/listing-hint';
import { whenStartupPath } from './code-cache-point';
import { startEarlyWork } from './early-start';

startEarlyWork(process.argv.slice(2), process.env);

const CORE = path.join(__dirname, 'server-core.js');
/** Set the moment the bundle starts running: from then on a failure is the server's own, never retried. */
let started = false;
const load = Module.createRequire(__filename);

type Enable = (dir: string) => unknown;

/** Node >= 22.1 (and VS Code's runtime) has a built-in on-disk compile cache; use it there. */
function loadWithBuiltinCache(dir: string): boolean {
  const enable = (Module as unknown as { enableCompileCache?: Enable }).enableCompileCache;
  if (typeof enable !== 'function') return false;
  enable(dir);
  started = true;
  load(CORE);
  return true;
}

/** Older Node: compile the bundle with vm.Script and V8 cached data keyed by the bundle and the runtime. */
function loadWithScriptCache(dir: string): void {
  const stat = fs.statSync(CORE);
  const key = `server-core-${stat.size}-${Math.floor(stat.mtimeMs)}-${process.version}-${process.arch}.bin`;
  const cacheFile = path.join(dir, key);
  let cachedData: Buffer | undefined;
  try {
    cachedData = fs.readFileSync(cacheFile);
  } catch {
    // first start with this bundle and runtime
  }
  // The bundle's text is its own CommonJS wrapper (see esbuild.mjs), compiled as it is: Module.wrap would make V8
  // copy it whole into a new string.
  const script = new vm.Script(readSource(CORE), { filename: CORE, cachedData });
  const mod = new Module(CORE, module);
  mod.filename = CORE;
  mod.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(__dirname);
  if (!cachedData || script.cachedDataRejected) {
    // Made once the start-up path has run, so that the functions it compiled are in the cache too: when the server
    // has answered its first tools/list, else CODE_CACHE_AFTER_HANDSHAKE_MS after its first initialize answer, else
    // at exit once it has answered one; a process that answers none makes none (see code-cache-point.ts).
    let kept = false;
    let latest: NodeJS.Timeout | undefined;
    const keep = (): void => {
      if (kept) return;
      kept = true;
      clearTimeout(latest);
      process.removeListener('exit', keep);
      try {
        fs.mkdirSync(dir, { recursive: true });
        for (const old of fs.readdirSync(dir)) if (old.startsWith('server-core-') && old !== key) fs.rmSync(path.join(dir, old), { force: true });
        const tmp = `${cacheFile}.${process.pid}.tmp`;
        fs.writeFileSync(tmp, script.createCachedData());
        fs.renameSync(tmp, cacheFile);
      } catch {
        // a read-only home only costs speed
      }
    };
    whenStartupPath({
      handshakeDone: () => {
        if (kept || latest) return;
        latest = setTimeout(keep, CODE_CACHE_AFTER_HANDSHAKE_MS);
        latest.unref();
        process.once('exit', keep);
      },
      startupPathRun: keep,
    });
  }
  started = true;
  // What the bundle's wrapper is called with (`this`, then its parameters), there while its script runs. A real
  // require (with resolve and cache): bundled packages probe optional ones with require.resolve.
  const globals = globalThis as Record<symbol, unknown>;
  globals[CORE_ARGUMENTS] = [mod.exports, mod.exports, Module.createRequire(CORE), mod, CORE, __dirname];
  try {
    script.runInThisContext();
  } finally {
    delete globals[CORE_ARGUMENTS];
  }
}

/** Where the bundle's wrapper finds its arguments when the loader runs it as a script (see esbuild.mjs). */
const CORE_ARGUMENTS = Symbol.for('notesapp.coreArguments');

/** How long after the first initialize answer the code cache is made at the latest, for a client that lists no tools. */
const CODE_CACHE_AFTER_HANDSHAKE_MS = 3000;

/**
 * The bundle's text. The build makes it pure ASCII (see esbuild.mjs), whose bytes are its Latin-1 text: copied as
 * they are into a one-byte string, without the UTF-8 decoding that took about 1 ms of each start. A bundle that is
 * not ASCII (a build without that step) is decoded as UTF-8.
 */
function readSource(file: string): string {
  const bytes = fs.readFileSync(file);
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

const dir = cacheDir();
if (dir) {
  try {
    if (!loadWithBuiltinCache(dir)) loadWithScriptCache(dir);
  } catch (err) {
    if (started) throw err;
  }
}
if (!started) load(CORE);
