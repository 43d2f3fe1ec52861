// The loader's hint of a workspace's size: an early listing is made unless the workspace held fewer than
// EARLY_LISTING_MIN_FILES files the last time it was listed.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  cacheDir,
  EARLY_LISTING_MIN_FILES,
  earlyListingWanted,
  keptListingFile,
  listingHintFile,
  pruneCacheFolder,
  rememberListingSize,
  STALE_TEMP_MS,
  UNUSED_WORKSPACE_MS,
} from '../../../src/core/workspace/listing-hint';

describe('the listing size hint', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-hint-'));
    env = { NOTESAPP_CACHE_DIR: path.join(dir, 'cache') };
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('wants an early listing for a workspace not known yet, and after a large one, not after a small one', async () => {
    const small = path.join(dir, 'small');
    const large = path.join(dir, 'large');
    assert.equal(earlyListingWanted(small, env), true);
    await rememberListingSize(small, EARLY_LISTING_MIN_FILES - 1, env);
    await rememberListingSize(large, EARLY_LISTING_MIN_FILES, env);
    assert.equal(earlyListingWanted(small, env), false);
    assert.equal(earlyListingWanted(large, env), true);
    // The workspace grew: remembered again.
    await rememberListingSize(small, 50_000, env);
    assert.equal(earlyListingWanted(small, env), true);
    assert.deepEqual(fs.readdirSync(path.join(dir, 'cache')).filter((f) => f.endsWith('.tmp')), [], 'no file left aside');
  });

  it('names each folder apart, and takes an unreadable hint for none', async () => {
    const a = path.join(dir, 'notes');
    const b = path.join(dir, 'notes2');
    assert.notEqual(listingHintFile('/c', a), listingHintFile('/c', b));
    await rememberListingSize(a, 3, env);
    assert.equal(earlyListingWanted(b, env), true);
    fs.writeFileSync(listingHintFile(path.join(dir, 'cache'), a), 'garbage');
    assert.equal(earlyListingWanted(a, env), true);
  });

  it('keeps nothing without a cache folder (NOTESAPP_NO_CODE_CACHE), and a write that fails costs nothing', async () => {
    assert.equal(cacheDir({ NOTESAPP_NO_CODE_CACHE: '1' }), undefined);
    await rememberListingSize(path.join(dir, 'w'), 3, { NOTESAPP_NO_CODE_CACHE: '1' });
    assert.equal(earlyListingWanted(path.join(dir, 'w'), { NOTESAPP_NO_CODE_CACHE: '1' }), true);
    fs.writeFileSync(path.join(dir, 'file'), 'x');
    await rememberListingSize(path.join(dir, 'w'), 3, { NOTESAPP_CACHE_DIR: path.join(dir, 'file', 'cache') });
    assert.equal(cacheDir({ HOME: dir }) !== undefined, true);
  });

  it("removes what no start will use: files left aside an hour ago or more, and the hint and kept listing of a workspace not listed for 90 days; nothing else", async () => {
    const cache = path.join(dir, 'cache');
    fs.mkdirSync(cache);
    const now = Date.now();
    const write = (name: string, ageMs: number): string => {
      const file = path.join(cache, name);
      fs.writeFileSync(file, 'x');
      const time = new Date(now - ageMs);
      fs.utimesSync(file, time, time);
      return name;
    };
    const day = 24 * 60 * 60 * 1000;
    const name = (file: string | undefined): string => path.basename(file ?? '');
    const linuxEnv = { NOTESAPP_CACHE_DIR: cache };
    const old = path.join(dir, 'old-notes');
    const used = path.join(dir, 'used-notes');
    const keptOnly = path.join(dir, 'big-notes');
    const expected = [
      write(`${name(listingHintFile(cache, old))}.123.tmp`, STALE_TEMP_MS + 60_000),
      write('server-core-1-2-v20.20.2-x64.bin.77.tmp', 3 * STALE_TEMP_MS),
      write(name(listingHintFile(cache, old)), UNUSED_WORKSPACE_MS + day),
      write(name(keptListingFile(old, linuxEnv, 'linux')), UNUSED_WORKSPACE_MS + 2 * day),
    ].sort();
    // Kept: a file being written now, a workspace listed recently (its kept listing is older, but its hint is new),
    // a kept listing alone that is recent, and what other parts of the server keep, however old.
    const kept = [
      write('listed-0123abcd-20.456.tmp', 60_000),
      write(name(listingHintFile(cache, used)), day),
      write(name(keptListingFile(used, linuxEnv, 'linux')), UNUSED_WORKSPACE_MS + 5 * day),
      write(name(keptListingFile(keptOnly, linuxEnv, 'linux')), 10 * day),
      write('server-core-1-2-v20.20.2-x64.bin', 400 * day),
      write('config-load-abc.json', 400 * day),
      write('startup-0123abcd.blob', 400 * day),
      write('listed-notes-of-mine.txt', 400 * day),
    ].sort();
    fs.mkdirSync(path.join(cache, 'listed-0123abcd-20'));
    assert.deepEqual(await pruneCacheFolder(cache, now), expected);
    assert.deepEqual(fs.readdirSync(cache).sort(), [...kept, 'listed-0123abcd-20'].sort());
    assert.deepEqual(await pruneCacheFolder(path.join(dir, 'no-such-folder'), now), [], 'a folder that is not there: nothing');
  });

  it('prunes the cache folder once a process remembers a listing size', async () => {
    const cache = path.join(dir, 'cache');
    fs.mkdirSync(cache);
    const stale = path.join(cache, 'listed-0123abcd-20.99.tmp');
    fs.writeFileSync(stale, '');
    const time = new Date(Date.now() - 2 * STALE_TEMP_MS);
    fs.utimesSync(stale, time, time);
    await rememberListingSize(path.join(dir, 'notes'), 3, env);
    assert.equal(fs.existsSync(stale), false, 'the file left aside is gone');
    assert.equal(earlyListingWanted(path.join(dir, 'notes'), env), false, 'the hint written is kept');
  });
});
