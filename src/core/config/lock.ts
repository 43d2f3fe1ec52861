// An advisory lock file beside config.json so that writers in different processes take turns.
import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

export interface LockOptions {
  /** Give up after this long (ms). */
  timeout?: number;
  /** A lock older than this (ms) was left by a crashed process and is taken over. */
  stale?: number;
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Removes a stale lock without ever removing a fresh one: between our stat and a plain rm another writer may
 * have taken the stale lock over and created its own. The lock is first renamed to a name of ours (atomic, so
 * only one writer gets it); if what we got is not the file we judged stale, it is put back (link fails rather
 * than replace a lock created meanwhile).
 */
async function takeOverStale(lock: string, seen: Stats): Promise<void> {
  const aside = `${lock}.${process.pid}-${randomBytes(4).toString('hex')}.stale`;
  try {
    await fs.rename(lock, aside);
  } catch {
    return; // someone else moved it first
  }
  const got = await fs.stat(aside).catch(() => undefined);
  if (got && (got.ino !== seen.ino || got.mtimeMs !== seen.mtimeMs)) {
    await fs.link(aside, lock).catch(() => undefined);
  }
  await fs.rm(aside, { force: true });
}

/** Runs `fn` while holding `${file}.lock` (created with O_EXCL). */
export async function withFileLock<T>(file: string, fn: () => Promise<T>, { timeout = 5000, stale = 10000 }: LockOptions = {}): Promise<T> {
  const lock = `${file}.lock`;
  const started = Date.now();
  await fs.mkdir(path.dirname(lock), { recursive: true });
  for (let wait = 5; ; wait = Math.min(wait * 2, 100)) {
    try {
      const handle = await fs.open(lock, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const stat = await fs.stat(lock).catch(() => undefined);
      if (stat && Date.now() - stat.mtimeMs > stale) {
        await takeOverStale(lock, stat);
        continue;
      }
      if (Date.now() - started > timeout) throw new Error(`configuration is locked by another process (${lock}); try again`, { cause: err });
      await delay(wait);
    }
  }
  try {
    return await fn();
  } finally {
    await fs.rm(lock, { force: true });
  }
}
