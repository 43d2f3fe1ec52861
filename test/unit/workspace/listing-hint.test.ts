// The loader's hint of a workspace's size: an early listing is made unless the workspace held fewer than
// EARLY_LISTING_MIN_FILES files the last time it was listed.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cacheDir, EARLY_LISTING_MIN_FILES, earlyListingWanted, listingHintFile, rememberListingSize } from '../../../src/core/workspace/listing-hint';

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
});
