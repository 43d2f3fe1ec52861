// The text worker the loader boots before the server's code is loaded: taken over by the first text worker whose
// limits match, stopped otherwise, never used once it has died.
import { decodeMatches, matchCount } from '../../../src/core/workspace/encoded-matches';
import * as assert from 'node:assert/strict';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultConfig } from '../../../src/core/config/schema';
import { compileQuery } from '../../../src/core/workspace/search';
import { TextWorker } from '../../../src/core/workspace/text-worker';
import {
  DEFAULT_INDEX_BYTES,
  DEFAULT_MAX_FILE_SIZE,
  discardPrestartedWorker,
  indexBytes,
  prestartTextWorker,
  shareOf,
} from '../../../src/core/workspace/worker-boot';

describe('the prestarted text worker', function () {
  this.timeout(60_000);
  let root: string;
  const workers: TextWorker[] = [];
  /** A text worker with the index's settings under the defaults, or with another file size limit. */
  const make = (maxFileSize = DEFAULT_MAX_FILE_SIZE) => {
    const w = new TextWorker({ root, maxFileSize, maxFiles: 1000, maxBytes: indexBytes({}) });
    workers.push(w);
    return w;
  };
  const find = async (w: TextWorker) => {
    const { matches } = await w.search(['a.md', 'b.md'], compileQuery({ query: 'needle', regex: false, caseSensitive: true, wholeWord: false, maxResults: 10 }), 10, undefined);
    // [index of the file, its matching line numbers]
    const results = decodeMatches(matches, matchCount(matches));
    const byFile: Array<[number, number[]]> = [];
    for (let f = 0, r = 0; f < matches.files.length; r += matches.files[f + 1], f += 2) byFile.push([matches.files[f], results.slice(r, r + matches.files[f + 1]).map((x) => x.line)]);
    return byFile;
  };

  before(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-boot-')));
    fs.writeFileSync(path.join(root, 'a.md'), 'one\nthe needle\n');
    fs.writeFileSync(path.join(root, 'b.md'), 'needle first\n');
  });

  afterEach(() => {
    discardPrestartedWorker();
    for (const w of workers.splice(0)) w.close();
  });

  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('assumes the defaults of the configuration and of the text budget', () => {
    assert.equal(defaultConfig().security.maxFileSize, DEFAULT_MAX_FILE_SIZE);
    assert.equal(indexBytes({}), DEFAULT_INDEX_BYTES);
    assert.equal(indexBytes({ NOTESAPP_INDEX_MB: '12' }), 12 * 1024 * 1024);
    assert.equal(indexBytes({ NOTESAPP_INDEX_MB: '0' }), 0);
    for (const bad of ['', '-1', 'lots']) assert.equal(indexBytes({ NOTESAPP_INDEX_MB: bad }), DEFAULT_INDEX_BYTES, bad);
    assert.equal([0, 1, 2].reduce((sum, i) => sum + shareOf(100, 3, i), 0), 100);
  });

  it('is taken over by the first text worker with its limits, which searches with it and stops it when closed', async () => {
    // With several workers (more cores), the first one's limits are those of its share of the budget: the same.
    const booted = prestartTextWorker({});
    assert.ok(booted, 'a worker was booted');
    assert.equal(prestartTextWorker({}), undefined, 'one at a time');
    const w = make();
    assert.deepEqual(await find(w), [
      [0, [2]],
      [1, [1]],
    ]);
    const gone = once(booted, 'exit');
    w.close();
    await gone; // it was the text worker's own thread
  });

  it('is stopped when the first text worker needs other limits, which starts its own', async () => {
    const booted = prestartTextWorker({});
    assert.ok(booted);
    const gone = once(booted, 'exit');
    const w = make(DEFAULT_MAX_FILE_SIZE * 2);
    w.start();
    await gone;
    assert.deepEqual(await find(w), [
      [0, [2]],
      [1, [1]],
    ]);
  });

  it("leaves the early listing's messages to the loader's listener: the text worker's counts stay what they were", async () => {
    const tree = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-boot-tree-')));
    try {
      for (let i = 0; i < 50; i++) {
        fs.mkdirSync(path.join(tree, `f${i}`));
        fs.writeFileSync(path.join(tree, `f${i}`, 'n.md'), 'needle\n');
      }
      // A request waits from the start: the worker sends the folders it read so far as soon as it sees it.
      const requested = new Int32Array(new SharedArrayBuffer(4)).fill(1);
      const booted = prestartTextWorker({}, tree, requested);
      assert.ok(booted);
      const w = new TextWorker({ root: tree, maxFileSize: DEFAULT_MAX_FILE_SIZE, maxFiles: 1000, maxBytes: indexBytes({}) });
      workers.push(w);
      // Taken over before the worker has sent anything (messages are delivered between turns of the event loop).
      const early = w.prelisted();
      // Registered after the text worker's own listener: it sees each message just after that listener did.
      const seen: Array<[string, unknown]> = [];
      booted.on('message', (m: { type?: string }) => {
        if (m.type?.startsWith('prelisting')) seen.push([m.type, { ...w.cacheStats() }]);
      });
      const listing = await early;
      assert.ok(listing);
      assert.ok(await listing.encoded, "the paths' bytes came");
      const none = { cachedFiles: 0, cachedBytes: 0 };
      assert.deepEqual(seen, [
        ['prelisting-head', none],
        ['prelisting', none],
        ['prelisting-bytes', none],
      ]);
    } finally {
      fs.rmSync(tree, { recursive: true, force: true });
    }
  });

  it('is not used once it has died, and is stopped when texts are not indexed', async () => {
    const dead = prestartTextWorker({});
    assert.ok(dead);
    await dead.terminate();
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(await find(make()), [
      [0, [2]],
      [1, [1]],
    ]);
    const unused = prestartTextWorker({});
    assert.ok(unused, 'the slot is free again');
    const gone = once(unused, 'exit');
    discardPrestartedWorker();
    await gone;
  });
});
