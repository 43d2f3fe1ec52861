// How many files a workspace held the last time the server listed it, remembered next to the code cache: the loader
// makes an early listing (see prelist.ts) only for a workspace that was large, or is not known yet. A small one
// is listed quickly after the handshake anyway, and its early listing would only compete with the server's loading
// for the cores (about 10 ms of spawn → initialize on two cores). A hint is only ever a guess: a wrong one costs
// speed, never correctness.
//
// This module is small on purpose: the loader bundles it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Workspaces with fewer files than this the last time are listed after the handshake, without an early listing. */
export const EARLY_LISTING_MIN_FILES = 5000;

/** The folder of the code cache and of these hints: NOTESAPP_CACHE_DIR, else ~/.notesapp/cache; none with NOTESAPP_NO_CODE_CACHE. */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.NOTESAPP_NO_CODE_CACHE) return undefined;
  return env.NOTESAPP_CACHE_DIR || path.join(os.homedir(), '.notesapp', 'cache');
}

/** FNV-1a over the UTF-16 code units, as 8 hex digits: a short, stable file name part without loading node:crypto. */
export function nameHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

/** A file of `dir` that belongs to a workspace folder (its path as given, resolved): `<kind>-<hash>-<length>`. */
function workspaceFile(dir: string, kind: 'listed' | 'listing', workspace: string): string {
  return path.join(dir, `${kind}-${nameHash(workspace)}-${workspace.length}`);
}

/** The name of a file workspaceFile makes; its second group (`<hash>-<length>`) names the workspace. */
const WORKSPACE_FILE_NAME = /^(listed|listing)-([0-9a-f]{8}-\d+)$/;

/** The hint file of a workspace folder (its path as given, resolved), in `dir`. */
export function listingHintFile(dir: string, workspace: string): string {
  return workspaceFile(dir, 'listed', workspace);
}

/**
 * The file in which the first text worker keeps the workspace's early listing for the next start (see
 * kept-listing.ts): in the cache folder, named as the hint is; undefined without a cache folder, with
 * NOTESAPP_LISTING_CACHE=off, and off Linux.
 */
export function keptListingFile(workspace: string, env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string | undefined {
  const dir = cacheDir(env);
  if (!dir || env.NOTESAPP_LISTING_CACHE === 'off' || platform !== 'linux') return undefined;
  return workspaceFile(dir, 'listing', workspace);
}

/** True unless the workspace is known to have held fewer than EARLY_LISTING_MIN_FILES files last time. */
export function earlyListingWanted(workspace: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const dir = cacheDir(env);
  if (!dir) return true;
  let text: string;
  try {
    text = fs.readFileSync(listingHintFile(dir, workspace), 'utf8');
  } catch {
    return true; // not known yet
  }
  const files = Number(text.trim());
  return !(Number.isInteger(files) && files >= 0 && files < EARLY_LISTING_MIN_FILES);
}

/**
 * Remembers how many files the workspace holds (written aside, then renamed; failures only cost speed). A workspace
 * too small to be listed early next time has its kept listing (if any) removed: it would not be used. The first
 * time in a process, the cache folder is pruned too (see pruneCacheFolder).
 */
export async function rememberListingSize(workspace: string, files: number, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const dir = cacheDir(env);
  if (!dir) return;
  const kept = keptListingFile(workspace, env);
  if (kept && files < EARLY_LISTING_MIN_FILES) await fs.promises.rm(kept, { force: true }).catch(() => undefined);
  const file = listingHintFile(dir, workspace);
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    await fs.promises.mkdir(dir, { recursive: true });
    await fs.promises.writeFile(tmp, `${files}\n`);
    await fs.promises.rename(tmp, file);
  } catch {
    await fs.promises.rm(tmp, { force: true }).catch(() => undefined);
  }
  if (!pruned.has(dir)) {
    pruned.add(dir);
    await pruneCacheFolder(dir);
  }
}

/** The cache folders this process has pruned (once each is enough: see pruneCacheFolder). */
const pruned = new Set<string>();

/** A file written aside this long ago was left by a process stopped between its write and its rename. */
export const STALE_TEMP_MS = 60 * 60 * 1000;

/** A workspace not listed for this long has its hint and kept listing removed (any start writes them anew). */
export const UNUSED_WORKSPACE_MS = 90 * 24 * 60 * 60 * 1000;

/**
 * Removes from the cache folder what no start will use: files written aside (`*.tmp`) by a process stopped before
 * it renamed them, an hour old or more, and the size hint and kept listing of each workspace listed last more
 * than 90 days ago (their newer modification time: every listing rewrites the hint). The code cache, the kept
 * configuration reads and the start-up snapshots are left to the code that keeps them, and anything else to its
 * owner. Failures are ignored (another server may be pruning too). Resolves to the names removed.
 */
export async function pruneCacheFolder(dir: string, now = Date.now()): Promise<string[]> {
  let names: string[];
  try {
    names = await fs.promises.readdir(dir);
  } catch {
    return [];
  }
  const modified = async (name: string): Promise<number | undefined> => {
    try {
      const stat = await fs.promises.lstat(path.join(dir, name));
      return stat.isFile() ? stat.mtimeMs : undefined;
    } catch {
      return undefined;
    }
  };
  const stale: string[] = [];
  const lastListed = new Map<string, { names: string[]; newest: number }>();
  for (const name of names) {
    if (name.endsWith('.tmp')) {
      const time = await modified(name);
      if (time !== undefined && time < now - STALE_TEMP_MS) stale.push(name);
      continue;
    }
    const named = WORKSPACE_FILE_NAME.exec(name);
    if (!named) continue;
    const time = await modified(name);
    if (time === undefined) continue;
    const entry = lastListed.get(named[2]) ?? { names: [], newest: -Infinity };
    entry.names.push(name);
    entry.newest = Math.max(entry.newest, time);
    lastListed.set(named[2], entry);
  }
  for (const { names: files, newest } of lastListed.values()) if (newest < now - UNUSED_WORKSPACE_MS) stale.push(...files);
  const removed: string[] = [];
  for (const name of stale) {
    try {
      await fs.promises.rm(path.join(dir, name), { force: true });
      removed.push(name);
    } catch {
      // removed meanwhile, or not ours to remove: left as it is
    }
  }
  return removed.sort();
}
