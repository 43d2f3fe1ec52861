// Start-up snapshots of the MCP server. Most of a server start is its modules loading (building the protocol's and
// the configuration's schemas); a V8 start-up snapshot holds the heap as they left it, and a process started with
// `node --snapshot-blob FILE dist/server.js` begins from that heap instead (see server/snapshot-entry.ts).
//
// A snapshot only works with the exact runtime binary that made it (any other refuses to start with it), so one is
// made per runtime and per server bundle, in the cache folder, by running that runtime once in the background; it
// is used only while both are the files it was made from. A runtime that cannot make one (an Electron build of
// Node, say) is remembered and not asked again until it or the bundle changes. Clients that start
// `node dist/server.js` are unaffected: the loader's code cache serves them.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
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
  made: string;
}

export type SnapshotState =
  | { state: 'ready'; blob: string }
  | { state: 'missing' | 'stale'; blob: string }
  | { state: 'failed'; blob: string; reason: string }
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
 * bundle), or `off` (no cache folder: NOTESAPP_NO_CODE_CACHE is set, or the bundle has no builder).
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
  /** For each of the two runs (make, then check); 60 s unless given. */
  timeoutMs?: number;
}

export type BuildResult = { ok: true; blob: string; ms: number } | { ok: false; reason: string };

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

/**
 * Makes the start-up snapshot of the server in `distDir` for `runtime`: runs the builder with that runtime, then
 * starts the server from the result with --version to see that it works, and only then puts it in place. A failure
 * is recorded (see snapshotState) and returned with its reason; nothing is left half-made.
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
    fs.renameSync(tmp, at.blob);
    record({ blobSize });
    return { ok: true, blob: at.blob, ms: Date.now() - started };
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}
