// An advisory lock file beside config.json so that writers in different processes take turns.
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
 * Removes a stale lock without ever removing a fresh one. Takeovers are serialised by a second, short-lived
 * O_EXCL file, and the holder re-checks staleness under it: a lock another writer created meanwhile has a fresh
 * mtime and is left alone. Returns false when another writer is taking over right now.
 */
async function takeOverStale(lock: string, stale: number): Promise<boolean> {
  const guard = `${lock}.takeover`;
  let handle;
  try {
    handle = await fs.open(guard, 'wx');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    // A takeover lasts microseconds; a guard this old was left by a process that crashed during one.
    const g = await fs.stat(guard).catch(() => undefined);
    if (g && Date.now() - g.mtimeMs > stale) await fs.rm(guard, { force: true });
    return false;
  }
  try {
    await handle.close();
    const current = await fs.stat(lock).catch(() => undefined);
    if (current && Date.now() - current.mtimeMs > stale) await fs.rm(lock, { force: true });
    return true;
  } finally {
    await fs.rm(guard, { force: true });
  }
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
        if (!(await takeOverStale(lock, stale))) await delay(wait);
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
