// How text worker threads start. Each one first runs a small program that waits for its real one (sent as its
// first message), so that a worker can boot before the server's code is even loaded: the loader (dist/server.js)
// starts one for the default settings, and the index takes it over once the settings are known. Booting a worker
// takes tens of milliseconds; done while the server loads, the first search does not wait for it.
//
// This module is small on purpose: the loader bundles it, and must stay quick to load.
import fs from 'node:fs';
import os from 'node:os';
import type { ResourceLimits, Worker } from 'node:worker_threads';
import { keepListing, KEPT_LISTING_FILE_SYSTEMS, KEPT_LISTING_VERSION, keptListingAllowed, keptListingText, parseKeptListing, readKeptListing } from './kept-listing';
import { EARLY_LISTING_MIN_FILES, keptListingFile } from './listing-hint';
import { encodeJoinedPaths, prelister, PRELIST_MAX_ENTRIES, RACY_MS, recheck, type PrelistCheck, type PrelistHead, type Prelisting } from './prelist';

/**
 * node:worker_threads, loaded on first use rather than as the bundle loads: a start-up snapshot (see
 * startup-snapshot.ts) must not hold it, since with Node 20 no worker of a process restored from one starts.
 */
export const workerThreads = () => process.getBuiltinModule('node:worker_threads');

/** Worker heap besides the texts kept and the room for the largest file. */
const WORKER_HEAP_MB = 48;
/**
 * The worker's young generation. Texts read for one search die young; with V8's default for workers the young
 * generation grew to hold them and stayed that size: 40 MiB more peak RSS with 50k notes, and no search faster.
 */
const WORKER_YOUNG_MB = 16;
/** Default memory budget for cached note text (all of a 10 000-note workspace); NOTESAPP_INDEX_MB overrides it. */
export const DEFAULT_INDEX_BYTES = 96 * 1024 * 1024;
/** security.maxFileSize's default (the configuration schema's; a unit test holds the two equal). */
export const DEFAULT_MAX_FILE_SIZE = 10 * 1024 * 1024;

/** The message in which a worker sends its early listing (see prelist.ts) as soon as it is made. */
export interface PrelistingMessage {
  type: 'prelisting';
  listing: Prelisting | undefined;
}

/**
 * The message that follows a PrelistingMessage whose listing is `checking` and that no PrelistHeadMessage came
 * before (the request came as the listing ended): the worker's check of it.
 */
export interface PrelistCheckMessage {
  type: 'prelisting-check';
  check: PrelistCheck;
}

/**
 * The last message of a worker that sent a listing: its files as list_files' answer writes them (see
 * encodeJoinedPaths), undefined when a path needs escaping.
 */
export interface PrelistBytesMessage {
  type: 'prelisting-bytes';
  bytes: Uint8Array | undefined;
}

/** The message a worker sends as it sees a request waiting for its listing: the folders it read so far. */
export interface PrelistHeadMessage {
  type: 'prelisting-head';
  head: PrelistHead;
}

/** Folders the early listing reads between two looks at whether the protocol thread holds it (about a millisecond). */
const PRELIST_STEP = 32;
/** The longest the early listing stays set aside for one hold (a search); then it goes on regardless. */
const PRELIST_HOLD_MS = 2000;

/**
 * The program every text worker runs first: given a workspace folder (workerData.prelist), it lists it and sends
 * the result (a PrelistingMessage). When it sees that a request waits for the listing (workerData.wanted, set by
 * the protocol thread) as it lists, it sends the folders read so far (a PrelistHeadMessage) for the protocol thread
 * to check while it reads the rest; when it sees that only once the listing is made, it checks them itself after
 * sending it (a PrelistCheckMessage), while the protocol thread takes the listing in. Last, it writes its files as
 * list_files' answer holds them (a PrelistBytesMessage). Given the file a listing is kept in between starts
 * (workerData.kept, see kept-listing.ts), it lists from the listing kept there, reading only the folders that
 * changed since, and keeps its own there unless it is that one, unchanged.
 *
 * It runs `{ source, setup }` with `setup` as soon as that comes. While the protocol thread holds the listing
 * (the second integer of `wanted` set: a search runs, see holdPrelisting), the worker sets it aside between two
 * steps of PRELIST_STEP folders: ripgrep then has the cores, and the search's own work, sent to this worker, is
 * taken at once instead of after the listing. A request that waits for the listing (the first integer) takes it up
 * again; a hold that lasts over PRELIST_HOLD_MS ends holding for good.
 */
const PRELUDE = `const __name = (fn) => fn;
const { parentPort, workerData } = require('node:worker_threads');
if (workerData && workerData.prelist) {
  const fs = require('node:fs');
  const wanted = workerData.wanted;
  let holdable = wanted !== undefined && wanted.length > 1 && typeof Atomics.waitAsync === 'function';
  let head = false;
  const sendHead = (h) => {
    head = true;
    parentPort.postMessage({ type: 'prelisting-head', head: h });
  };
  const keptFile = workerData.kept;
  const fileSystems = ${JSON.stringify(KEPT_LISTING_FILE_SYSTEMS)};
  const allowed = (${keptListingAllowed.toString()});
  const kept = keptFile ? (${readKeptListing.toString()})(fs, keptFile, workerData.prelist, fileSystems, ${KEPT_LISTING_VERSION}, (${parseKeptListing.toString()}), allowed) : undefined;
  const next = (${prelister.toString()})(fs, workerData.prelist, ${PRELIST_MAX_ENTRIES}, wanted, sendHead, kept, ${RACY_MS});
  const send = (listing) => {
    const checking = listing !== undefined && wanted !== undefined && Atomics.load(wanted, 0) !== 0;
    if (listing) listing.checking = checking;
    parentPort.postMessage({ type: 'prelisting', listing });
    if (checking && !head) parentPort.postMessage({ type: 'prelisting-check', check: (${recheck.toString()})(fs, listing) });
    if (listing) {
      const bytes = (${encodeJoinedPaths.toString()})(listing.joined);
      parentPort.postMessage({ type: 'prelisting-bytes', bytes }, bytes ? [bytes.buffer] : []);
    }
    // Kept for the next start, unless it is the kept listing itself, unchanged.
    if (keptFile && listing && !(listing.kept && listing.kept.whole)) {
      void (${keepListing.toString()})(fs, keptFile, listing, ${EARLY_LISTING_MIN_FILES}, fileSystems, ${KEPT_LISTING_VERSION}, (${keptListingText.toString()}), allowed);
    }
  };
  const run = () => {
    for (;;) {
      if (holdable && Atomics.load(wanted, 1) !== 0 && Atomics.load(wanted, 0) === 0) {
        const wait = Atomics.waitAsync(wanted, 1, 1, ${PRELIST_HOLD_MS});
        if (wait.async) {
          return void wait.value.then((how) => {
            if (how === 'timed-out') holdable = false;
            run();
          });
        }
        continue;
      }
      const step = next(holdable ? ${PRELIST_STEP} : Infinity);
      if (step.done) return send(step.listing);
    }
  };
  run();
}
parentPort.once('message', (m) => new Function('require', 'setup', m.source)(require, m.setup));`;

/** Folders the protocol thread checks at a time (see checkHead): a few milliseconds, then other work may run. */
const HEAD_CHECK_SLICE = 256;

/**
 * The protocol thread's check of the folders an early listing read before a request waited (see PrelistHead), in
 * slices, made while the worker reads the rest. It begins once the request waits, as the worker's own would.
 */
export async function checkHead(head: PrelistHead): Promise<PrelistCheck> {
  const stats: number[] = [];
  for (let from = 0; from < head.folders.length; from += HEAD_CHECK_SLICE) {
    if (from > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    const to = Math.min(head.folders.length, from + HEAD_CHECK_SLICE);
    const slice = { root: head.root, folders: head.folders.slice(from, to), stats: head.stats.slice(3 * from, 3 * to) };
    for (const value of recheck(fs, slice).stats) stats.push(value);
  }
  return { stats, by: 'protocol thread' };
}

/** The text memory budget: NOTESAPP_INDEX_MB (mebibytes, 0 or more) when set, else the default. */
export function indexBytes(env: NodeJS.ProcessEnv): number {
  const mb = Number(env.NOTESAPP_INDEX_MB);
  return env.NOTESAPP_INDEX_MB !== undefined && env.NOTESAPP_INDEX_MB !== '' && Number.isFinite(mb) && mb >= 0 ? mb * 1024 * 1024 : DEFAULT_INDEX_BYTES;
}

/**
 * Worker threads sharing the texts when not set: one per core but the protocol thread's, at least 1, at most 4. On
 * two cores a second worker slowed the first listing (three threads crawling and reading at once) more than it
 * sped up searches.
 */
export function shardCount(shards?: number): number {
  return Math.max(1, Math.min(4, shards ?? (os.availableParallelism?.() ?? os.cpus().length) - 1));
}

/** Worker i's share of `total` among n workers; the shares add up to it exactly. */
export function shareOf(total: number, n: number, i: number): number {
  return Math.floor(total / n) + (i < total % n ? 1 : 0);
}

/** The heap limits of a worker keeping at most `maxBytes` of text and reading files of up to `maxFileSize` bytes. */
export function workerLimits(maxBytes: number, maxFileSize: number): ResourceLimits {
  return {
    maxOldGenerationSizeMb: WORKER_HEAP_MB + Math.ceil(maxBytes / 1048576) + Math.ceil((3 * maxFileSize) / 1048576),
    maxYoungGenerationSizeMb: WORKER_YOUNG_MB,
  };
}

/**
 * Starts a worker that waits for its program (see runProgram), listing `prelistRoot` first when given; `wanted`
 * (shared 32-bit integers): the first is set to 1 by the caller once a request waits for that listing, the
 * second, when there is one, while the caller holds the listing (see PRELUDE). `keptFile`: where that listing is
 * kept between starts (see kept-listing.ts), if anywhere.
 */
export function bootWorker(limits: ResourceLimits, prelistRoot?: string, wanted?: Int32Array, keptFile?: string): Worker {
  return new (workerThreads().Worker)(PRELUDE, { eval: true, resourceLimits: limits, workerData: prelistRoot === undefined ? undefined : { prelist: prelistRoot, wanted, kept: keptFile } });
}

/** Gives a booted worker its program: `source` runs with `require` and `setup` in scope. */
export function runProgram(worker: Worker, source: string, setup: unknown): void {
  worker.postMessage({ source, setup });
}

interface Prestarted {
  worker: Worker;
  limits: ResourceLimits;
  /** Its early listing: undefined when it was given no folder, could not list it, or stopped first. */
  prelisting: Promise<Prelisting | undefined>;
  /** Tells it a request waits for that listing. */
  request: () => void;
  /** Tells it to set its listing aside (true), or to go on with it (see PRELUDE). */
  hold: (on: boolean) => void;
  /** Its listeners while it waits, removed when it is taken. */
  onError: () => void;
  onExit: () => void;
}

// The loader and the server are separate bundles, each with its own copy of this module: the slot is global.
const SLOT = Symbol.for('notesapp.prestartedTextWorker');
const slots = globalThis as unknown as Record<symbol, Prestarted | undefined>;

/**
 * Boots the first text worker now, with the limits the index will ask for under the default settings
 * (security.maxFileSize, NOTESAPP_INDEX_MB, cores); given the workspace folder, it lists it first (see prelist.ts).
 * It keeps nothing alive, and goes if it fails or is not taken. Returns it (undefined when one is waiting already
 * or it could not start: the index then starts its own). `wanted`: the shared integers through which it is told
 * that a request waits for its listing, and that the protocol thread holds it (tests pass some set already).
 */
export function prestartTextWorker(env: NodeJS.ProcessEnv = process.env, workspace?: string, wanted = new Int32Array(new SharedArrayBuffer(8))): Worker | undefined {
  if (slots[SLOT]) return undefined;
  const n = shardCount();
  const limits = workerLimits(shareOf(indexBytes(env), n, 0), DEFAULT_MAX_FILE_SIZE);
  let worker: Worker;
  try {
    worker = bootWorker(limits, workspace, wanted, workspace === undefined ? undefined : keptListingFile(workspace, env));
  } catch {
    return undefined;
  }
  const prelisting = workspace === undefined ? Promise.resolve(undefined) : receivePrelisting(worker);
  // After the listeners: adding a 'message' listener refs the worker again.
  worker.unref();
  // Until taken: a failure only empties the slot (an 'error' without a listener would end the process).
  const onError = () => undefined;
  const onExit = () => {
    if (slots[SLOT]?.worker === worker) slots[SLOT] = undefined;
  };
  worker.on('error', onError);
  worker.on('exit', onExit);
  const request = () => {
    Atomics.store(wanted, 0, 1);
    // A listing set aside goes on at once.
    if (wanted.length > 1) Atomics.notify(wanted, 1);
  };
  const hold = (on: boolean) => {
    if (wanted.length < 2) return;
    Atomics.store(wanted, 1, on ? 1 : 0);
    if (!on) Atomics.notify(wanted, 1);
  };
  slots[SLOT] = { worker, limits, prelisting, request, hold, onError, onExit };
  return worker;
}

/**
 * The early listing a worker sends (see PRELUDE), with its `check` when a request waited for it: the protocol
 * thread's check of the listing's head when the worker sent one, else the worker's own check to come (undefined
 * if it stops first); and with its `encoded` files to come. Undefined when the worker sends none or stops first.
 * Received while the protocol thread is idle, whether or not the worker was taken meanwhile; the listeners go once
 * all is received.
 */
export function receivePrelisting(worker: Pick<Worker, 'on' | 'off'>): Promise<Prelisting | undefined> {
  return new Promise<Prelisting | undefined>((settle) => {
    let settleCheck: ((check: PrelistCheck | undefined) => void) | undefined;
    let settleEncoded: ((encoded: readonly Uint8Array[] | undefined) => void) | undefined;
    let headCheck: Promise<PrelistCheck> | undefined;
    const done = () => {
      worker.off('message', onMessage).off('exit', onGone).off('error', onGone);
      // When it stopped before sending them.
      settleCheck?.(undefined);
      settleEncoded?.(undefined);
    };
    const onMessage = (message: Partial<PrelistingMessage | PrelistCheckMessage | PrelistHeadMessage | PrelistBytesMessage> | undefined) => {
      if (message?.type === 'prelisting-head' && message.head) {
        headCheck = checkHead(message.head);
      } else if (message?.type === 'prelisting') {
        const listing = message.listing;
        if (!listing) return void (done(), settle(undefined));
        listing.encoded = new Promise((resolve) => (settleEncoded = resolve));
        if (listing.checking) listing.check = headCheck ?? new Promise((resolve) => (settleCheck = resolve));
        settle(listing);
      } else if (message?.type === 'prelisting-check' && message.check) {
        settleCheck?.(message.check);
        settleCheck = undefined;
      } else if (message?.type === 'prelisting-bytes') {
        settleEncoded?.(message.bytes && [message.bytes]);
        settleEncoded = undefined;
        done();
      }
    };
    const onGone = () => {
      settle(undefined);
      done();
    };
    worker.on('message', onMessage).on('exit', onGone).on('error', onGone);
  });
}

/**
 * The prestarted worker and its early listing when it was booted with exactly `limits` (it is then the caller's,
 * with no listener but the one waiting for that listing); undefined otherwise, and a worker booted with other
 * limits is stopped.
 */
export function takePrestartedWorker(limits: ResourceLimits): Pick<Prestarted, 'worker' | 'prelisting' | 'request' | 'hold'> | undefined {
  const p = release();
  if (!p) return undefined;
  const same = limits.maxOldGenerationSizeMb === p.limits.maxOldGenerationSizeMb && limits.maxYoungGenerationSizeMb === p.limits.maxYoungGenerationSizeMb;
  if (same) return { worker: p.worker, prelisting: p.prelisting, request: p.request, hold: p.hold };
  void p.worker.terminate();
  return undefined;
}

/** True while a prestarted worker waits to be taken. */
export function prestartedWorkerWaiting(): boolean {
  return slots[SLOT] !== undefined;
}

/** Stops the prestarted worker if nobody took it (texts are not indexed with these settings). */
export function discardPrestartedWorker(): void {
  void release()?.worker.terminate();
}

function release(): Prestarted | undefined {
  const p = slots[SLOT];
  slots[SLOT] = undefined;
  p?.worker.off('error', p.onError).off('exit', p.onExit);
  return p;
}
