// dist/server-snapshot.js: what `node --snapshot-blob FILE --build-snapshot dist/server-snapshot.js` runs to make a
// start-up snapshot of the server (see src/core/startup-snapshot.ts). It loads the server bundle (dist/server-core.js)
// without starting it: the bundle sees that a snapshot is being built and leaves its start to each process restored
// from the snapshot (see main.ts). The snapshot then holds the heap as the bundle's modules left it, so a process
// started from it skips loading them, the biggest part of a start.
//
// A value a module takes from its process as it loads (an environment variable, the home or current folder, the
// time, random bytes) would be the same in every process started from the snapshot. The bundle must take none: this
// builder watches for them while the bundle loads and fails, naming them, when it took one. Values the server needs
// per process are made as each process is restored (see per-process.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import v8 from 'node:v8';

const CORE = path.join(__dirname, 'server-core.js');

// Run any other way, the bundle would start a server.
if (!v8.startupSnapshot?.isBuildingSnapshot()) {
  throw new Error('Run this as `node --snapshot-blob FILE --build-snapshot server-snapshot.js`');
}

/** What the bundle took from its process while it loaded, each with where. */
const taken: string[] = [];
const restore: Array<() => void> = [];

/** Records `what` when the bundle's own code asked for it (Node reads FORCE_COLOR to print a warning, say). */
function note(what: string): void {
  const frames: { stack?: string } = {};
  // Deep enough to reach the bundle's frame from inside a package's helpers.
  const depth = Error.stackTraceLimit;
  Error.stackTraceLimit = 100;
  Error.captureStackTrace(frames);
  Error.stackTraceLimit = depth;
  const frame = (frames.stack ?? '').split('\n').find((line) => line.includes(CORE));
  if (frame) taken.push(`${what} (${frame.trim().replace(/^at /, '')})`);
}

function watchFunction(owner: object, key: string, label: string): void {
  const descriptor = Object.getOwnPropertyDescriptor(owner, key);
  // An accessor (node:crypto's getRandomValues is Web Crypto's, watched there) or a fixed property is left alone.
  if (!descriptor || !('value' in descriptor) || typeof descriptor.value !== 'function' || !descriptor.configurable) return;
  const original = descriptor.value as (...a: unknown[]) => unknown;
  const watched = function (this: unknown, ...args: unknown[]) {
    note(`${label}()`);
    return original.apply(this, args);
  };
  Object.defineProperty(owner, key, { ...descriptor, value: watched });
  restore.push(() => Object.defineProperty(owner, key, descriptor));
}

function watchEnvironment(): void {
  const env = process.env;
  process.env = new Proxy(env, {
    get: (target, key) => {
      if (typeof key === 'string') note(`process.env.${key}`);
      return Reflect.get(target, key);
    },
    has: (target, key) => {
      note(`'${String(key)}' in process.env`);
      return Reflect.has(target, key);
    },
    ownKeys: (target) => {
      note('the names in process.env');
      return Reflect.ownKeys(target);
    },
  });
  restore.push(() => {
    process.env = env;
  });
}

watchEnvironment();
for (const key of ['randomBytes', 'randomUUID', 'randomInt', 'randomFillSync', 'getRandomValues']) watchFunction(crypto, key, `crypto.${key}`);
for (const key of ['randomUUID', 'getRandomValues']) watchFunction(globalThis.crypto, key, `crypto.${key}`);
watchFunction(Math, 'random', 'Math.random');
watchFunction(Date, 'now', 'Date.now');
for (const key of ['homedir', 'tmpdir', 'hostname', 'userInfo', 'cpus', 'availableParallelism']) watchFunction(os, key, `os.${key}`);
watchFunction(process, 'cwd', 'process.cwd');

// As Node runs a CommonJS module, but with only the built-in modules to require (all a snapshot can hold). A package
// that probes for an optional one finds none, as in the packaged extension, which has no node_modules.
const missing = (id: string): never => {
  throw Object.assign(new Error(`Cannot find module '${id}' (a start-up snapshot holds only built-in modules)`), { code: 'MODULE_NOT_FOUND' });
};
const load = (id: string): unknown => process.getBuiltinModule(id) ?? missing(id);
load.resolve = missing;
// Compiled as a function (node:vm is not made for snapshots); sourceURL names the bundle in stack traces.
const source = `${fs.readFileSync(CORE, 'utf8')}\n//# sourceURL=${CORE}`;
const wrapper = new Function('exports', 'require', 'module', '__filename', '__dirname', source) as (...args: unknown[]) => void;
const mod = { exports: {} };
wrapper.call(mod.exports, mod.exports, load, mod, CORE, __dirname);
for (const undo of restore.reverse()) undo();

// With Node 20, no worker thread of a process restored from a snapshot holding node:worker_threads starts.
const loaded = (process as unknown as { moduleLoadList: string[] }).moduleLoadList;
if (loaded.includes('NativeModule worker_threads')) {
  throw new Error('The server bundle loaded node:worker_threads as it loaded; it must load it on first use (see workerThreads in worker-boot.ts), so no snapshot is made');
}
if (taken.length > 0) {
  throw new Error(
    `The server bundle took these from its process as it loaded; every process started from a snapshot would share them, so no snapshot is made:\n  ${[...new Set(taken)].join('\n  ')}`,
  );
}
