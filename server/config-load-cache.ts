// What reading the config file gave, kept on disk beside the code cache, so that a server started again with the
// same file and the same build skips the configuration's zod schema: making it and reading a file with it took about
// 11 ms of each start (the schema's module is loaded on first use in the bundle, see lazy-modules.mjs). The file's
// bytes are the key: any change to the file, however small, is read again. The build is in the cache file's name,
// so what another build of the server read (with another schema) is never used.
import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { ConfigFileLoad, ConfigLoadMemo } from '../src/core/config/load';

/** The largest config file kept (settings take a few kilobytes; a larger file is read with the schema each time). */
export const MAX_KEPT_BYTES = 64 * 1024;

/** Reads kept: the newest first (a file as it is now and as it was before an edit that may be undone, or the files
 * of servers started with different ones). */
const KEPT_READS = 4;

/** How long after a new read the cache file is written: never during the handshake. */
const WRITE_DELAY_MS = 1000;

interface Entry {
  /** The file's bytes in base64, or null for no file. */
  key: string | null;
  /** The load without its bytes, as JSON. */
  load: string;
}

/** The cache file of build `build` in `dir`. */
export function configLoadCacheFile(dir: string, build: string): string {
  return path.join(dir, `config-load-${build}.json`);
}

/**
 * A memo of config file reads (see useConfigLoadMemo in load.ts), whichever file they were of, kept in `dir` for build
 * `build`. A cache file that cannot be read or is not one of ours is taken as empty; one that cannot be written costs
 * only speed. `onError` hears of a failed write.
 */
export function configLoadCache(dir: string, build: string, onError: (message: string) => void = () => undefined): ConfigLoadMemo & { flush(): void } {
  const file = configLoadCacheFile(dir, build);
  let entries: Entry[] | undefined;
  let timer: NodeJS.Timeout | undefined;
  const read = (): Entry[] => {
    if (entries) return entries;
    try {
      const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as { entries?: unknown };
      entries = Array.isArray(parsed.entries) ? parsed.entries.filter(isEntry).slice(0, KEPT_READS) : [];
    } catch {
      entries = [];
    }
    return entries;
  };
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    dueAtExit.delete(flush);
    try {
      fs.mkdirSync(dir, { recursive: true });
      // Reads of other builds are of no more use.
      const own = path.basename(file);
      const prefix = `config-load-`;
      for (const name of fs.readdirSync(dir)) {
        if (name.startsWith(prefix) && name !== own && name.endsWith('.json')) fs.rmSync(path.join(dir, name), { force: true });
      }
      const tmp = path.join(dir, `${own}.${process.pid}.tmp`);
      // Readable by the user only: a configuration may hold secrets (plugin settings, keys).
      fs.writeFileSync(tmp, JSON.stringify({ entries: read() }), { mode: 0o600 });
      fs.renameSync(tmp, file);
    } catch (err) {
      onError(`the configuration read could not be kept in ${dir}: ${(err as Error).message}`);
    }
  };
  return {
    get(bytes) {
      const key = keyOf(bytes);
      if (key === undefined) return undefined;
      const entry = read().find((e) => e.key === key);
      if (!entry) return undefined;
      let load: ConfigFileLoad;
      try {
        load = JSON.parse(entry.load) as ConfigFileLoad;
      } catch {
        return undefined;
      }
      if (!isLoad(load)) return undefined;
      return bytes ? { ...load, bytes } : load;
    },
    set(bytes, load) {
      const key = keyOf(bytes);
      if (key === undefined) return;
      // Its fields without the bytes and those left undefined (which read the same as absent ones).
      const rest = Object.fromEntries(Object.entries(load).filter(([name, value]) => name !== 'bytes' && value !== undefined));
      const json = JSON.stringify(rest);
      // Only a read that JSON gives back exactly (-0, say, it does not) is kept.
      if (!isDeepStrictEqual(JSON.parse(json), rest)) return;
      const kept = read();
      if (kept[0]?.key === key && kept[0].load === json) return;
      entries = [{ key, load: json }, ...kept.filter((e) => e.key !== key)].slice(0, KEPT_READS);
      clearTimeout(timer);
      timer = setTimeout(flush, WRITE_DELAY_MS);
      timer.unref();
      // A server that ends sooner keeps it all the same.
      flushAtExit(flush);
    },
    flush,
  };
}

/** Writes not yet made, made as the process exits (one exit listener for every cache of the process). */
const dueAtExit = new Set<() => void>();
let exitHooked = false;

function flushAtExit(flush: () => void): void {
  if (!exitHooked) {
    exitHooked = true;
    process.once('exit', () => {
      for (const due of [...dueAtExit]) due();
    });
  }
  dueAtExit.add(flush);
}

function keyOf(bytes: Buffer | null): string | null | undefined {
  if (bytes === null) return null;
  return bytes.length <= MAX_KEPT_BYTES ? bytes.toString('base64') : undefined;
}

function isEntry(value: unknown): value is Entry {
  const e = value as Partial<Entry> | null;
  return typeof e === 'object' && e !== null && (e.key === null || typeof e.key === 'string') && typeof e.load === 'string';
}

/** What every read has (a cache file written by hand, or damaged, could hold anything else). */
function isLoad(value: unknown): value is ConfigFileLoad {
  const load = value as Partial<ConfigFileLoad> | null;
  return (
    typeof load === 'object' &&
    load !== null &&
    typeof load.config === 'object' &&
    load.config !== null &&
    Array.isArray(load.problems) &&
    typeof load.migrated === 'boolean' &&
    Array.isArray(load.migrationNotes)
  );
}
