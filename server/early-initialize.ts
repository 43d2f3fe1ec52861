// The answer to `initialize` written by the loader (dist/server.js) before it loads the server's bundle, from the
// answer the server gave the last time it was started the same way. Loading the bundle takes most of a start (the
// code cache's compile, the modules' own code, the server's objects: 70-100 ms on the benchmark's machines), and a
// client that stops waiting for the handshake (some do) need not wait for it. The requests after it wait for the
// server as they did.
//
// The kept answer (`initialize-<hash>-<length>.json` in the cache folder) is used only while everything it depends
// on is as it was: the bundle (its size and modification time), the arguments, the working folder, the environment
// the server reads (its NOTESAPP_ variables but the editor bridge's, and those that name the home and configuration
// folders), the configuration file's bytes, and the workspace being a folder. The request must be an initialize
// the MCP SDK takes as it is, of a shape checked here field by field (the ones clients send: capabilities roots,
// sampling, elicitation, experimental and extensions, clientInfo with its strings); anything else goes to the server
// as before. The protocol version is chosen as the SDK chooses it. The server still handles the request (the SDK
// keeps the client's capabilities) and its answer, which it does not write again, is compared byte for byte with
// the one written: should they differ, it says so in its log and keeps its own for the next start.
//
// This module is small on purpose: the loader bundles it.
import fs from 'node:fs';
import path from 'node:path';
import { nameHash } from '../src/core/workspace/listing-hint';

/** Where the loader leaves the answer it wrote, for the transport (see takeEarlyInitialize). */
const EARLY_INITIALIZE = Symbol.for('notesapp.earlyInitialize');

/** The kept answer's format. */
const KEPT_VERSION = 1;
/** The largest first line looked at, and the largest configuration file kept (settings take a few kilobytes). */
const MAX_LINE_BYTES = 64 * 1024;
const MAX_CONFIG_BYTES = 64 * 1024;
/** Environment variables besides NOTESAPP_* the server's answer may depend on (where its configuration file is). */
const HOME_VARIABLES = ['HOME', 'USERPROFILE', 'APPDATA', 'XDG_CONFIG_HOME', 'HOMEDRIVE', 'HOMEPATH'];

/** An initialize answered by the loader: the request's id and the line written. */
export interface EarlyInitialize {
  id: string | number;
  line: Buffer;
}

/** The kept answer, as written in the cache folder. */
export interface KeptHandshake {
  v: number;
  /** The bundle's size and modification time (see bundleSignature). */
  bundle: string;
  /** handshakeKey of the start that answered. */
  key: string;
  /** The configuration file read, and its bytes in base64 (null: there was none). */
  config: { path: string; bytes: string | null };
  workspace: string;
  /** The SDK's protocol versions: those it takes as asked, and the one it answers any other with. */
  supported: string[];
  latest: string;
  /** The initialize result, as the SDK made it. */
  result: Record<string, unknown>;
}

/**
 * What an initialize answer depends on besides the files (the bundle, the configuration, the workspace): the
 * arguments, the working folder, and the environment variables the server reads, as one string.
 */
export function handshakeKey(argv: readonly string[], env: NodeJS.ProcessEnv, cwd: string): string {
  const names = Object.keys(env)
    .filter((name) => (name.startsWith('NOTESAPP_') && !name.startsWith('NOTESAPP_BRIDGE_')) || HOME_VARIABLES.includes(name))
    .sort();
  return JSON.stringify({ argv, cwd, env: names.map((name) => [name, env[name]]) });
}

/** The kept answer's file in the cache folder `dir`, for a start of key `key`. */
export function handshakeFile(dir: string, key: string): string {
  return path.join(dir, `initialize-${nameHash(key)}-${key.length}.json`);
}

/** A bundle file's size and modification time, as the code cache names it; undefined when it cannot be read. */
export function bundleSignature(file: string): string | undefined {
  try {
    const stat = fs.statSync(file);
    return `${stat.size}-${Math.floor(stat.mtimeMs)}`;
  } catch {
    return undefined;
  }
}

/** A configuration file's bytes in base64, null when there is none, undefined when it cannot be kept or read. */
function configBytes(file: string): string | null | undefined {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? null : undefined;
  }
  return bytes.length <= MAX_CONFIG_BYTES ? bytes.toString('base64') : undefined;
}

/**
 * Keeps a server's initialize answer in `dir` for the next start made the same way (written beside, then renamed,
 * readable by the user only). Nothing is kept for a configuration file that cannot be (see configBytes), and a
 * failure to write costs only the next start's speed. Returns whether it was kept.
 */
export function keepHandshake(dir: string, kept: Omit<KeptHandshake, 'v' | 'config'> & { configPath: string }): boolean {
  const bytes = configBytes(kept.configPath);
  if (bytes === undefined) return false;
  const { configPath, ...rest } = kept;
  const record: KeptHandshake = { v: KEPT_VERSION, ...rest, config: { path: configPath, bytes } };
  const file = handshakeFile(dir, kept.key);
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(tmp, JSON.stringify(record), { mode: 0o600 });
    fs.renameSync(tmp, file);
    return true;
  } catch {
    fs.rmSync(tmp, { force: true });
    return false;
  }
}

/** Removes the kept answer of a start of key `key` (one found to differ from the server's). */
export function forgetHandshake(dir: string, key: string): void {
  try {
    fs.rmSync(handshakeFile(dir, key), { force: true });
  } catch {
    // the next start compares again
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isString = (value: unknown): value is string => typeof value === 'string';

/**
 * The answer kept in `dir` for a start of key `key` with the bundle `bundle` (see bundleSignature), when it may be
 * used: the file is the user's own and writable by no one else, of this format, of this key and bundle, the
 * configuration file holds the same bytes (or is still missing), and the workspace is a folder. Else undefined.
 */
export function readKeptHandshake(dir: string, key: string, bundle: string | undefined): KeptHandshake | undefined {
  if (bundle === undefined) return undefined;
  let text: string;
  try {
    const fd = fs.openSync(handshakeFile(dir, key), 'r');
    try {
      const stat = fs.fstatSync(fd);
      // (Windows has no owner id to compare, and reports every file writable by group and others.)
      const uid = process.getuid?.();
      const othersMayWrite = process.platform !== 'win32' && (stat.mode & 0o022) !== 0;
      if (!stat.isFile() || (uid !== undefined && stat.uid !== uid) || othersMayWrite || stat.size > 1024 * 1024) return undefined;
      text = fs.readFileSync(fd, 'utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return undefined;
  }
  let kept: KeptHandshake;
  try {
    kept = JSON.parse(text) as KeptHandshake;
  } catch {
    return undefined;
  }
  if (
    !isRecord(kept) ||
    kept.v !== KEPT_VERSION ||
    kept.key !== key ||
    kept.bundle !== bundle ||
    !isRecord(kept.config) ||
    !isString(kept.config.path) ||
    (kept.config.bytes !== null && !isString(kept.config.bytes)) ||
    !isString(kept.workspace) ||
    !Array.isArray(kept.supported) ||
    !kept.supported.every(isString) ||
    !isString(kept.latest) ||
    !isRecord(kept.result) ||
    !isString(kept.result.protocolVersion)
  ) {
    return undefined;
  }
  if (configBytes(kept.config.path) !== kept.config.bytes) return undefined;
  try {
    if (!fs.statSync(kept.workspace).isDirectory()) return undefined;
  } catch {
    return undefined;
  }
  return kept;
}

/** Every value of `value` (a plain object) passes `check`. */
const allValues = (value: unknown, check: (v: unknown) => boolean): boolean => isRecord(value) && Object.values(value).every(check);
/** `value` is a plain object whose keys are among `keys` and whose values pass their checks. */
const shaped = (value: unknown, fields: Record<string, (v: unknown) => boolean>): boolean =>
  isRecord(value) && Object.entries(value).every(([name, v]) => Object.hasOwn(fields, name) && fields[name](v));

/** The client capabilities the loader answers for: each as the MCP SDK's schema takes it. */
const CAPABILITIES: Record<string, (v: unknown) => boolean> = {
  roots: (v) => shaped(v, { listChanged: (x) => typeof x === 'boolean' }),
  sampling: (v) => shaped(v, { context: isRecord, tools: isRecord }),
  elicitation: (v) => shaped(v, { form: (x) => shaped(x, { applyDefaults: (b) => typeof b === 'boolean' }), url: isRecord }),
  experimental: (v) => allValues(v, isRecord),
  extensions: (v) => allValues(v, isRecord),
};

/** clientInfo's fields the loader answers for: strings, `name` and `version` required. */
const CLIENT_INFO: Record<string, (v: unknown) => boolean> = { name: isString, version: isString, title: isString, websiteUrl: isString, description: isString };

/**
 * The answer to `line` (the client's first line, without its newline) from the kept answer, when it is an
 * initialize request of the shapes checked here; else undefined (the server answers it).
 */
export function earlyAnswer(kept: KeptHandshake, line: string): EarlyInitialize | undefined {
  let request: unknown;
  try {
    request = JSON.parse(line);
  } catch {
    return undefined;
  }
  // Every field present (shaped takes a field that is not there), and none other.
  const fields = { jsonrpc: (v: unknown) => v === '2.0', id: (v: unknown) => isString(v) || Number.isSafeInteger(v), method: (v: unknown) => v === 'initialize', params: isRecord };
  if (!shaped(request, fields) || Object.keys(request as object).length !== 4) return undefined;
  const { id, params } = request as { id: string | number; params: Record<string, unknown> };
  const paramFields = { protocolVersion: isString, capabilities: (v: unknown) => shaped(v, CAPABILITIES), clientInfo: (v: unknown) => shaped(v, CLIENT_INFO) };
  if (!shaped(params, paramFields) || Object.keys(params).length !== 3) return undefined;
  const { protocolVersion: asked, clientInfo } = params as { protocolVersion: string; clientInfo: { name?: unknown; version?: unknown } };
  if (!isString(clientInfo.name) || !isString(clientInfo.version)) return undefined;
  // As the SDK's Server chooses: the version asked for when it takes it, else its latest.
  const protocolVersion = kept.supported.includes(asked) ? asked : kept.latest;
  // The SDK's response, as the transport writes it: result, jsonrpc, id (the result's keys in the SDK's order).
  const text = JSON.stringify({ result: { ...kept.result, protocolVersion }, jsonrpc: '2.0', id });
  return { id, line: Buffer.from(`${text}\n`, 'utf8') };
}

/**
 * Answers the initialize at the head of what `stdin` holds already (read, then put back as it was, so that the
 * server reads it all), writing the answer with `write`. Returns the answer written, or undefined (nothing there
 * yet, not a whole line, not an initialize this module answers, or the write failed). Never reads at the end of
 * the input: that would end the stream before the server listens to it.
 */
export function answerBuffered(stdin: NodeJS.ReadableStream & { readableLength: number; unshift(chunk: Buffer): void }, kept: KeptHandshake, write: (bytes: Buffer) => void = writeOut): EarlyInitialize | undefined {
  if (stdin.readableLength === 0) return undefined;
  const held = stdin.read() as Buffer | string | null;
  if (held === null) return undefined;
  const chunk = typeof held === 'string' ? Buffer.from(held, 'utf8') : held;
  stdin.unshift(chunk);
  const end = chunk.indexOf(10);
  if (end < 0 || end > MAX_LINE_BYTES) return undefined;
  const answer = earlyAnswer(kept, chunk.toString('utf8', 0, end));
  if (!answer) return undefined;
  try {
    write(answer.line);
  } catch {
    return undefined;
  }
  return answer;
}

/** Writes all of `bytes` to stdout (a pipe the client reads, blocking as a child's stdio is), or throws before any is written. */
function writeOut(bytes: Buffer): void {
  let at = 0;
  while (at < bytes.length) {
    try {
      at += fs.writeSync(1, bytes, at);
    } catch (err) {
      // Nothing written yet: the server answers. Part of it written (a full pipe): the rest must follow.
      if (at === 0 || (err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
    }
  }
}

/** What the loader knew of this start: where answers are kept, the start's key and the bundle's signature. */
export interface HandshakeStart {
  dir: string;
  key: string;
  bundle: string;
}

const HANDSHAKE_START = Symbol.for('notesapp.handshakeStart');

/** Leaves what the loader knew of this start for the server, which keeps its answer with it (see keepHandshake). */
export function leaveHandshakeStart(start: HandshakeStart): void {
  (globalThis as Record<symbol, unknown>)[HANDSHAKE_START] = start;
}

/** What the loader left of this start, taken once; undefined when no loader started the server this way. */
export function takeHandshakeStart(): HandshakeStart | undefined {
  const globals = globalThis as Record<symbol, unknown>;
  const start = globals[HANDSHAKE_START] as HandshakeStart | undefined;
  delete globals[HANDSHAKE_START];
  return start;
}

/**
 * Runs `load` (what loads and starts the server from `bundle`, the path of server-core.js) after answering the
 * client's initialize from the answer kept in `dir` when it may (see readKeptHandshake and earlyAnswer): at once
 * when there is none, else after one turn of the event loop, in which what the client has sent by then is read.
 * Without `dir`, or with NOTESAPP_EARLY_INITIALIZE=off, it only runs `load`. Otherwise what the server needs to
 * keep its own answer is left for it (see takeHandshakeStart).
 */
export function answerThenLoad(bundle: string, dir: string | undefined, load: () => void): void {
  if (!dir || process.env.NOTESAPP_EARLY_INITIALIZE === 'off') return load();
  const signature = bundleSignature(bundle);
  if (signature === undefined) return load();
  const key = handshakeKey(process.argv.slice(2), process.env, process.cwd());
  leaveHandshakeStart({ dir, key, bundle: signature });
  const kept = readKeptHandshake(dir, key, signature);
  if (!kept) return load();
  // Reading stdin starts as the running script ends; what the client has sent by then (its initialize, when it
  // sent it as it started the server) is read in the event loop's first turn, before this immediate runs. The
  // server is loaded then, whether or not there was an initialize to answer: nothing waits for one.
  const stdin = process.stdin;
  const reading = (): void => undefined;
  stdin.on('readable', reading);
  setImmediate(() => {
    stdin.off('readable', reading);
    const answer = answerBuffered(stdin, kept);
    if (answer) leaveEarlyInitialize(answer);
    load();
  });
}

/** Leaves the answer the loader wrote for the transport. */
export function leaveEarlyInitialize(answer: EarlyInitialize): void {
  (globalThis as Record<symbol, unknown>)[EARLY_INITIALIZE] = answer;
}

/** The answer the loader wrote, if any, taken once (the transport takes it as it is made). */
export function takeEarlyInitialize(): EarlyInitialize | undefined {
  const globals = globalThis as Record<symbol, unknown>;
  const answer = globals[EARLY_INITIALIZE] as EarlyInitialize | undefined;
  delete globals[EARLY_INITIALIZE];
  return answer;
}
