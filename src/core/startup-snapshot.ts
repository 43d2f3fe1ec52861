// Start-up snapshots of the MCP server. Most of a server start is its modules loading (building the protocol's and
// the configuration's schemas); a V8 start-up snapshot holds the heap as they left it, and a process started with
// `node --snapshot-blob FILE dist/server.js` begins from that heap instead (see server/snapshot-entry.ts).
//
// A snapshot only works with the exact runtime binary that made it (any other refuses to start with it), so one is
// made per runtime and per server bundle, in the cache folder, by running that runtime once in the background; it
// is used only while both are the files it was made from. A runtime that cannot make one (an Electron build of
// Node, say) is remembered and not asked again until it or the bundle changes. Whether a snapshot makes the start
// sooner depends on the machine (restoring its larger heap touches more memory than loading the bundle through its
// code cache, which costs more where a page touched the first time costs more), so a snapshot made is kept only when
// servers started from it answer sooner than servers started from the code cache, timed in turn (compareStarts).
// Clients that start `node dist/server.js` are unaffected: the loader's code cache serves them.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { cacheDir, nameHash } from './workspace/listing-hint';

/** The builder beside dist/server.js. */
export const SNAPSHOT_ENTRY = 'server-snapshot.js';
const CORE = 'server-core.js';
const LOADER = 'server.js';
const RECORD_VERSION = 1;

/** A file as it was when the snapshot was made: a changed size or time means another file. */
interface FileMark {
  path: string;
  size: number;
  mtimeMs: number;
}

/** What is kept beside a snapshot (or in place of one that could not be made). */
interface SnapshotRecord {
  version: number;
  runtime: FileMark;
  core: FileMark;
  entry: FileMark;
  /** The snapshot's size; absent when none could be made. */
  blobSize?: number;
  /** Why none could be made with this runtime and bundle. */
  failed?: string;
  /** Why the one made was not kept: servers started sooner without it (see compareStarts). */
  slower?: string;
  /** Its servers' starts against the code cache's, when they were compared. */
  startMs?: StartTimes;
  made: string;
}

/** Medians of the starts compareStarts timed: spawn to the first `tools/list` answer, in milliseconds. */
export interface StartTimes {
  snapshot: number;
  codeCache: number;
  /** Starts timed each way. */
  starts: number;
}

export type SnapshotState =
  | { state: 'ready'; blob: string }
  | { state: 'missing' | 'stale'; blob: string }
  | { state: 'failed'; blob: string; reason: string }
  | { state: 'slower'; blob: string; reason: string }
  | { state: 'off'; reason: string };

function mark(file: string): FileMark | undefined {
  try {
    const real = fs.realpathSync(file);
    const stat = fs.statSync(real);
    return stat.isFile() ? { path: real, size: stat.size, mtimeMs: stat.mtimeMs } : undefined;
  } catch {
    return undefined;
  }
}

const sameMark = (a: FileMark | undefined, b: FileMark | undefined): boolean =>
  a !== undefined && b !== undefined && a.path === b.path && a.size === b.size && a.mtimeMs === b.mtimeMs;

interface Located {
  blob: string;
  record: string;
  runtime: FileMark | undefined;
  core: FileMark | undefined;
  entry: FileMark | undefined;
}

function locate(distDir: string, runtime: string, dir: string): Located {
  const runtimeMark = mark(runtime);
  const name = `startup-${nameHash(`${runtimeMark?.path ?? runtime}\0${path.resolve(distDir)}`)}`;
  return {
    blob: path.join(dir, `${name}.blob`),
    record: path.join(dir, `${name}.json`),
    runtime: runtimeMark,
    core: mark(path.join(distDir, CORE)),
    entry: mark(path.join(distDir, SNAPSHOT_ENTRY)),
  };
}

function readRecord(file: string): SnapshotRecord | undefined {
  try {
    const record = JSON.parse(fs.readFileSync(file, 'utf8')) as SnapshotRecord;
    return record && record.version === RECORD_VERSION ? record : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the server in `distDir` (the folder of dist/server.js) has a start-up snapshot for the runtime binary
 * `runtime`: `ready` (use it), `missing` or `stale` (make one), `failed` (this runtime could not make one from this
 * bundle), `slower` (the one made did not make the server start sooner, and was not kept), or `off` (no cache
 * folder: NOTESAPP_NO_CODE_CACHE is set, or the bundle has no builder).
 */
export function snapshotState(distDir: string, runtime: string, env: NodeJS.ProcessEnv = process.env): SnapshotState {
  const dir = cacheDir(env);
  if (!dir) return { state: 'off', reason: 'NOTESAPP_NO_CODE_CACHE is set' };
  const at = locate(distDir, runtime, dir);
  if (!at.core || !at.entry) return { state: 'off', reason: `${distDir} has no ${CORE} and ${SNAPSHOT_ENTRY}` };
  const record = readRecord(at.record);
  if (!record) return { state: 'missing', blob: at.blob };
  if (!sameMark(record.runtime, at.runtime) || !sameMark(record.core, at.core) || !sameMark(record.entry, at.entry)) return { state: 'stale', blob: at.blob };
  if (record.failed !== undefined) return { state: 'failed', blob: at.blob, reason: record.failed };
  if (record.slower !== undefined) return { state: 'slower', blob: at.blob, reason: record.slower };
  let size: number;
  try {
    size = fs.statSync(at.blob).size;
  } catch {
    return { state: 'missing', blob: at.blob };
  }
  return size === record.blobSize ? { state: 'ready', blob: at.blob } : { state: 'stale', blob: at.blob };
}

/** The snapshot to start the server in `distDir` with on `runtime`, when there is one made from both as they are. */
export function usableSnapshot(distDir: string, runtime: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const s = snapshotState(distDir, runtime, env);
  return s.state === 'ready' ? s.blob : undefined;
}

export interface BuildOptions {
  /** The folder of dist/server.js. */
  distDir: string;
  /** The runtime binary the server will be started with. */
  runtime: string;
  /** Variables the runtime needs to run as Node (ELECTRON_RUN_AS_NODE for VS Code's own binary). */
  runtimeEnv?: Record<string, string>;
  /** Where the cache folder comes from (NOTESAPP_CACHE_DIR, NOTESAPP_NO_CODE_CACHE). */
  env?: NodeJS.ProcessEnv;
  /** For each of the two runs (make, then check), and for each start compared; 60 s unless given. */
  timeoutMs?: number;
  /**
   * Starts timed each way before the snapshot is kept (see compareStarts); 0 keeps it without comparing. Unless
   * given: NOTESAPP_SNAPSHOT_STARTS in `env` (a whole number up to MAX_STARTS), else DEFAULT_STARTS.
   */
  starts?: number;
  /** Times one start (compareStarts' own unless given). */
  timeStart?: (start: StartCommand) => Promise<number>;
}

/** A server start that compareStarts times. */
export interface StartCommand {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** True for the start from the snapshot. */
  fromSnapshot: boolean;
  /** Ends the process through its input once it has answered (so that it writes its code cache), not by a kill. */
  graceful: boolean;
  timeoutMs: number;
}

export type BuildResult =
  | { ok: true; blob: string; ms: number; startMs?: StartTimes }
  | { ok: false; reason: string; startMs?: StartTimes };

/**
 * Starts timed each way by default: about 3 s in all with the untimed first ones. On the benchmark machine, where the
 * two starts differ by 27-44 ms, five of each gave the verdict that the benchmark's ten of each gave, in every run.
 */
export const DEFAULT_STARTS = 5;
const MAX_STARTS = 50;

/** The number of starts compareStarts times each way, from NOTESAPP_SNAPSHOT_STARTS (anything else: the default). */
export function startsToCompare(env: NodeJS.ProcessEnv): number {
  const text = env.NOTESAPP_SNAPSHOT_STARTS?.trim();
  if (!text || !/^\d+$/.test(text)) return DEFAULT_STARTS;
  return Math.min(Number(text), MAX_STARTS);
}

interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  /** Stopped for taking longer than the time given (a busy machine): worth trying again another time. */
  timedOut: boolean;
  /** The program could not be started at all. */
  error?: Error;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string, timeoutMs: number): Promise<RunResult> {
  return new Promise((resolve) => {
    const options = { env, cwd, timeout: timeoutMs, killSignal: 'SIGKILL' as const, maxBuffer: 1024 * 1024, windowsHide: true };
    execFile(command, args, options, (err, _stdout, stderr) => {
      if (!err) return resolve({ code: 0, signal: null, stderr, timedOut: false });
      // A string code is the start's own failure (ENOENT, EACCES); a number is the program's exit code.
      if (typeof err.code === 'string') return resolve({ code: null, signal: null, stderr, timedOut: false, error: err });
      const timedOut = err.killed === true && err.signal === 'SIGKILL';
      resolve({ code: err.code ?? null, signal: err.signal ?? null, stderr: timedOut ? `${stderr}\n(stopped after ${timeoutMs} ms)` : stderr, timedOut });
    });
  });
}

/** What a failed run said: the message of the error it ended with (all its lines), else its last line. */
function lastLine(r: RunResult): string {
  if (r.error) return r.error.message;
  const lines = r.stderr.split(/\r?\n/).map((l) => l.trim());
  const start = lines.findIndex((l) => /^\w*Error\b/.test(l));
  let said: string | undefined;
  if (start >= 0) {
    const end = lines.findIndex((l, i) => i > start && (l.startsWith('at ') || l === ''));
    said = lines.slice(start, end < 0 ? undefined : end).join(' ').replace(/^Error: /, '');
  } else said = lines.filter((l) => l && !l.startsWith('(Use `node')).pop();
  const how = r.signal ? `killed by ${r.signal}` : `exit code ${r.code}`;
  return said ? `${said} (${how})` : how;
}

/** Removes snapshots in `dir` whose bundle is gone (an extension version since replaced). */
function removeOrphans(dir: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!/^startup-[0-9a-f]{8}\.json$/.test(name)) continue;
    const record = readRecord(path.join(dir, name));
    if (record && fs.existsSync(record.core.path) && fs.existsSync(record.runtime.path)) continue;
    for (const file of [name, name.replace(/\.json$/, '.blob')]) fs.rmSync(path.join(dir, file), { force: true });
  }
}

/**
 * Puts aside a snapshot the runtime could not start the server from although the server started without it: the
 * blob is removed and its record keeps `reason`, so that it is not used, nor made again, for this runtime and bundle.
 */
export function discardSnapshot(blob: string, reason: string): void {
  const recordFile = blob.replace(/\.blob$/, '.json');
  const record = readRecord(recordFile);
  fs.rmSync(blob, { force: true });
  if (!record) return;
  delete record.blobSize;
  record.failed = `the runtime did not start the server from it: ${reason}`;
  const tmp = `${recordFile}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(record, null, 2)}\n`);
  fs.renameSync(tmp, recordFile);
}

const INITIALIZE = `${JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'notesapp-start-timing', version: '1' } } })}\n`;
// What a client sends once initialize is answered; the tools/list answer is what it waits for before any call.
const AFTER_INITIALIZE = `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })}\n`;

/** A start that could not be timed; `timedOut`: it took longer than the time given (a busy machine). */
export class StartError extends Error {
  constructor(
    message: string,
    readonly timedOut = false,
  ) {
    super(message);
  }
}

/**
 * Milliseconds from spawning `s` to its answer of a `tools/list` sent, as a client sends it, right after the
 * `initialize` answer; resolves once the process has ended. Rejects with a StartError when it does not answer both
 * (an error answer included), ends first, or takes longer than `s.timeoutMs`.
 */
export function timeHandshake(s: StartCommand): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(s.command, s.args, { cwd: s.cwd, env: s.env, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
    let pending = '';
    let stderr = '';
    let answered: number | undefined;
    let failure: StartError | undefined;
    const fail = (err: StartError): void => {
      failure ??= err;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => fail(new StartError(answered === undefined ? `no tools/list answer within ${s.timeoutMs} ms` : `it did not end within ${s.timeoutMs} ms once its input ended`, true)), s.timeoutMs);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      if (answered !== undefined || failure) return;
      pending += chunk;
      for (let nl = pending.indexOf('\n'); nl !== -1; nl = pending.indexOf('\n')) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        let message: { id?: unknown; error?: { message?: string } };
        try {
          message = JSON.parse(line) as typeof message;
        } catch {
          continue; // not a JSON-RPC message
        }
        if (message.id !== 0 && message.id !== 1) continue;
        if (message.error) return fail(new StartError(`it answered ${message.id === 0 ? 'initialize' : 'tools/list'} with an error: ${message.error.message}`));
        if (message.id === 0) {
          child.stdin.write(AFTER_INITIALIZE);
          continue;
        }
        answered = performance.now() - started;
        if (s.graceful) child.stdin.end();
        else child.kill('SIGKILL');
        return;
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < 8192) stderr += chunk;
    });
    child.stdin.on('error', () => undefined); // a process that ended early: its exit tells
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new StartError(err.message));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (failure) return reject(failure);
      if (answered !== undefined) return resolve(answered);
      const said = lastLine({ code, signal, stderr, timedOut: false });
      reject(new StartError(`it ended before it answered tools/list: ${said}`));
    });
    child.stdin.write(INITIALIZE);
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

type Comparison = { times: StartTimes } | { error: StartError; fromSnapshot: boolean };

/**
 * Times servers of `distDir` started on `runtime` from the snapshot `blob` and from the code cache, `starts` of each
 * in turn (which goes first alternates), spawn to the first `tools/list` answer, after one start of each that is
 * not timed (the first, from the code cache, makes it). They serve an empty folder, with no configuration file, and
 * keep their home, cache and log in a folder of their own that is removed afterwards: nothing of the user's is read
 * or written.
 */
async function compareStarts(o: { distDir: string; runtime: string; runtimeEnv: Record<string, string> | undefined; env: NodeJS.ProcessEnv; blob: string; starts: number; timeoutMs: number; timeStart: (start: StartCommand) => Promise<number> }): Promise<Comparison> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-starts-'));
  try {
    const notes = path.join(scratch, 'notes');
    const home = path.join(scratch, 'home');
    fs.mkdirSync(notes);
    fs.mkdirSync(home);
    const env: NodeJS.ProcessEnv = { PATH: o.env.PATH ?? '', ...o.runtimeEnv, HOME: home, USERPROFILE: home, NOTESAPP_CACHE_DIR: path.join(scratch, 'cache'), NODE_EXTRA_CA_CERTS: '' };
    const server = [path.join(o.distDir, LOADER), '--workspace', notes, '--config', path.join(scratch, 'config.json')];
    const times: Record<'snapshot' | 'codeCache', number[]> = { snapshot: [], codeCache: [] };
    for (let round = -1; round < o.starts; round++) {
      for (const fromSnapshot of round % 2 === 0 ? [true, false] : [false, true]) {
        const args = fromSnapshot ? ['--snapshot-blob', o.blob, ...server] : server;
        let ms: number;
        try {
          ms = await o.timeStart({ command: o.runtime, args, env, cwd: notes, fromSnapshot, graceful: round < 0, timeoutMs: o.timeoutMs });
        } catch (err) {
          return { error: err instanceof StartError ? err : new StartError((err as Error).message), fromSnapshot };
        }
        if (round >= 0) times[fromSnapshot ? 'snapshot' : 'codeCache'].push(ms);
      }
    }
    return { times: { snapshot: median(times.snapshot), codeCache: median(times.codeCache), starts: o.starts } };
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true, maxRetries: 3 });
  }
}

const ms1 = (ms: number): string => ms.toFixed(1);

/** "medians of 5 starts each", said of `starts` timed starts each way. */
export const startsEach = (starts: number): string => (starts === 1 ? 'one start each' : `medians of ${starts} starts each`);

/**
 * Makes the start-up snapshot of the server in `distDir` for `runtime`: runs the builder with that runtime, starts
 * the server from the result with --version to see that it works, times servers started from it against servers
 * started from the code cache (compareStarts, unless `starts` is 0), and puts it in place only when it works and
 * they answered sooner. A failure, or a snapshot not kept for being slower, is recorded (see snapshotState) and
 * returned with its reason; nothing is left half-made.
 */
export async function buildStartupSnapshot(o: BuildOptions): Promise<BuildResult> {
  const env = o.env ?? process.env;
  const dir = cacheDir(env);
  if (!dir) return { ok: false, reason: 'NOTESAPP_NO_CODE_CACHE is set' };
  const at = locate(o.distDir, o.runtime, dir);
  if (!at.core || !at.entry) return { ok: false, reason: `${o.distDir} has no ${CORE} and ${SNAPSHOT_ENTRY}` };
  if (!at.runtime) return { ok: false, reason: `the runtime ${o.runtime} is not there` };
  const timeoutMs = o.timeoutMs ?? 60_000;
  const started = Date.now();
  // The runtime's own environment only: a NODE_OPTIONS meant for something else must not change the heap.
  const childEnv: NodeJS.ProcessEnv = { PATH: env.PATH ?? '', HOME: env.HOME ?? '', ...o.runtimeEnv, NODE_EXTRA_CA_CERTS: '' };
  fs.mkdirSync(dir, { recursive: true });
  removeOrphans(dir);
  const tmp = `${at.blob}.${process.pid}.tmp`;
  const record = (extra: Partial<SnapshotRecord>): void => {
    const body: SnapshotRecord = { version: RECORD_VERSION, runtime: at.runtime!, core: at.core!, entry: at.entry!, made: new Date().toISOString(), ...extra };
    const recordTmp = `${at.record}.${process.pid}.tmp`;
    fs.writeFileSync(recordTmp, `${JSON.stringify(body, null, 2)}\n`);
    fs.renameSync(recordTmp, at.record);
  };
  try {
    const made = await run(o.runtime, ['--no-warnings', '--snapshot-blob', tmp, '--build-snapshot', at.entry.path], childEnv, o.distDir, timeoutMs);
    if (made.code !== 0 || made.error) {
      const reason = `the runtime could not make one: ${lastLine(made)}`;
      // A run stopped for taking too long (a busy machine) is tried again another time.
      if (!made.timedOut) record({ failed: reason });
      return { ok: false, reason };
    }
    const checked = await run(o.runtime, ['--snapshot-blob', tmp, path.join(o.distDir, LOADER), '--version'], childEnv, o.distDir, timeoutMs);
    if (checked.code !== 0 || !/^notesapp \S+\s*$/.test(checked.stderr)) {
      const reason = `the server did not start from it: ${lastLine(checked)}`;
      if (!checked.timedOut) record({ failed: reason });
      return { ok: false, reason };
    }
    const blobSize = fs.statSync(tmp).size;
    const starts = o.starts ?? startsToCompare(env);
    let startMs: StartTimes | undefined;
    if (starts > 0) {
      const compared = await compareStarts({ distDir: o.distDir, runtime: o.runtime, runtimeEnv: o.runtimeEnv, env, blob: tmp, starts, timeoutMs, timeStart: o.timeStart ?? timeHandshake });
      if ('error' in compared) {
        const { error, fromSnapshot } = compared;
        // A server that does not start from the snapshot although it starts without is the snapshot's fault, and
        // remembered; one that does not start either way, or a start stopped for taking too long, is tried again.
        const reason = fromSnapshot ? `the server started from it did not answer: ${error.message}` : `the server's starts could not be timed: ${error.message}`;
        if (fromSnapshot && !error.timedOut) record({ failed: reason });
        return { ok: false, reason };
      }
      startMs = compared.times;
      if (startMs.snapshot >= startMs.codeCache) {
        const reason = `servers started from it answered later than servers started from the code cache (${ms1(startMs.snapshot)} ms against ${ms1(startMs.codeCache)} ms to the first tools/list answer, ${startsEach(starts)})`;
        record({ slower: reason, startMs });
        return { ok: false, reason, startMs };
      }
    }
    fs.renameSync(tmp, at.blob);
    record({ blobSize, startMs });
    return { ok: true, blob: at.blob, ms: Date.now() - started, startMs };
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}
