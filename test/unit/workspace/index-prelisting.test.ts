// The early listing: the loader's text worker lists the workspace while the server loads, and the index starts
// from it. Whatever changed in between (or while its folders are not watched yet) must still be in every answer,
// exactly as a crawl of the disk lists it.
import * as assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Worker } from 'node:worker_threads';
import { listWorkspaceFiles } from '../../../src/core/workspace/listing';
import { compileGlobs, globMatcher } from '../../../src/core/workspace/listing';
import { filterPrelisting, prelist, recheck, type PrelistHead, type Prelisting } from '../../../src/core/workspace/prelist';
import { WorkspaceIndex, type IndexOptions } from '../../../src/core/workspace/workspace-index';
import { DEFAULT_EXCLUDES, indexOptions } from './index-options';
import { checkHead, discardPrestartedWorker, prestartTextWorker, receivePrelisting } from '../../../src/core/workspace/worker-boot';

/** Longer than the coarsest clock tick a file system time is taken from on Linux (HZ=100). */
const TICK_MS = 30;

describe('workspace index: the early listing', function () {
  this.timeout(60_000);
  let root: string;
  const opened: WorkspaceIndex[] = [];

  const write = (rel: string, text = `# ${rel}\n`) => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  };

  /** What a crawl of the disk lists now. */
  const crawl = (excludePatterns = DEFAULT_EXCLUDES, showHiddenFiles = false) => listWorkspaceFiles(root, { excludePatterns, showHiddenFiles });

  function open(o: Partial<IndexOptions> = {}): { index: WorkspaceIndex; logged: string[] } {
    const logged: string[] = [];
    const index = new WorkspaceIndex(indexOptions(root, { log: (_level, message) => logged.push(message), ...o }));
    opened.push(index);
    return { index, logged };
  }

  /**
   * An index started from an early listing made a tick ago, whose replies are not written out until `release()`:
   * watching the folders and reading the texts wait for that.
   */
  async function gated(): Promise<{ index: WorkspaceIndex; release: () => void }> {
    const early = prelist(fs, root, 1_000_000);
    await sleep(TICK_MS);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { index } = open({ prelisting: async () => early, racyMs: 0, waitForOutput: () => gate });
    return { index, release };
  }

  /** The listing the index answers a request with (false: it fell back to the disk). */
  async function listed(index: WorkspaceIndex): Promise<string[]> {
    assert.equal(await index.fresh(), true, 'the index answers');
    return [...index.listFiles()];
  }

  const startLine = (logged: string[]) => {
    const line = logged.find((m) => m.includes('from the early listing'));
    assert.ok(line, `the index started from the early listing: ${logged.join(' | ')}`);
    return line;
  };
  const readAgain = (logged: string[]) => Number(/(\d+) read again/.exec(startLine(logged))?.[1]);

  /**
   * An early listing made with a request arriving as it reads its `at`-th folder (counting from 1); `heads` gets
   * what it sends the moment it sees the request.
   */
  function requestedWhileListing(at: number, heads: PrelistHead[] = []): Prelisting {
    const wanted = new Int32Array(new SharedArrayBuffer(4));
    let reads = 0;
    const readdirSync = (...args: Parameters<typeof fs.readdirSync>) => {
      if (++reads === at) Atomics.store(wanted, 0, 1);
      return fs.readdirSync(...args);
    };
    const early = prelist({ ...fs, readdirSync } as typeof fs, root, 1_000_000, wanted, (head) => heads.push(head));
    assert.ok(early);
    return early;
  }

  beforeEach(async () => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-prelist-')));
    write('a.md');
    write('b.txt');
    write('notes/x.md');
    write('notes/deep/y.md');
    write('notes/deep/deeper/z.md');
    write('archive/old.md');
    write('node_modules/pkg/readme.md');
    write('notes/node_modules/inner.md');
    write('.hidden/h.md');
    write('.dot.md');
    write('notes/.obsidian/app.json');
    write('media/x.git.md'); // holds ".git" mid-name: not excluded, but the exclude globs must look
    // Names that sort around a folder's: before "notes/" ("-", "."), after it ("0"), upper case, outside ASCII.
    for (const name of ['notes.md', 'notes-2.md', 'notes0.md', 'Notes/n.md', 'été.md', 'notes/é/a.md', 'notes/\u{1F600}.md', 'notes/\uFFFD.md']) write(name);
    await sleep(TICK_MS);
  });

  afterEach(() => {
    for (const index of opened.splice(0)) index.dispose();
    discardPrestartedWorker();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('lists what the crawl lists under the default settings, sorted, folders before their children', async () => {
    const early = prelist(fs, root, 1_000_000);
    assert.ok(early);
    assert.equal(early.root, root);
    assert.deepEqual(early.joined.split('\0'), await crawl());
    assert.deepEqual([...early.folders].sort(), ['', 'Notes', 'archive', 'media', 'notes', 'notes/deep', 'notes/deep/deeper', 'notes/é']);
    for (const [i, folder] of early.folders.entries()) {
      const parent = folder.includes('/') ? folder.slice(0, folder.lastIndexOf('/')) : '';
      if (folder !== '') assert.ok(early.folders.indexOf(parent) < i, `${parent} before ${folder}`);
      const stat = fs.statSync(path.join(root, folder));
      assert.deepEqual(early.stats.slice(3 * i, 3 * i + 3), [stat.mtimeMs, stat.ctimeMs, stat.ino], folder);
    }
  });

  it('notes the folders it read after a request waited, and the check stats only those read before', async () => {
    assert.equal(prelist(fs, root, 1_000_000, new Int32Array(new SharedArrayBuffer(4)))?.wantedAt, undefined, 'no request');
    const early = requestedWhileListing(3);
    // The third folder was being read when the request came: it and the two before it were stat'ed before.
    assert.equal(early.wantedAt, 3);
    assert.deepEqual(early.joined.split('\0'), await crawl());
    await sleep(TICK_MS);
    const [, before, gone, after] = early.folders;
    write(`${before}/added.md`);
    write(`${after}/added.md`);
    fs.rmSync(path.join(root, gone), { recursive: true });
    const check = recheck(fs, early);
    assert.equal(check.stats.length, 3 * 3, 'three folders checked');
    const stat = (rel: string) => fs.statSync(path.join(root, rel));
    for (const [i, rel] of [[0, ''], [1, before]] as const) {
      // The workspace folder lost `gone`; `before` gained a file.
      assert.deepEqual(check.stats.slice(3 * i, 3 * i + 3), [stat(rel).mtimeMs, stat(rel).ctimeMs, stat(rel).ino]);
      assert.notDeepEqual(check.stats.slice(3 * i, 3 * i + 3), early.stats.slice(3 * i, 3 * i + 3), `${rel} changed`);
    }
    assert.ok(check.stats.slice(6, 9).every(Number.isNaN), `${gone} is gone`);
    // A request before the first folder: nothing to check.
    const waiting = new Int32Array(new SharedArrayBuffer(4)).fill(1);
    const all = prelist(fs, root, 1_000_000, waiting);
    assert.equal(all?.wantedAt, 0);
    assert.deepEqual(all && recheck(fs, all).stats, []);
  });

  it("answers from the worker's check: folders read before the request as they are now, the rest once watched", async () => {
    const early = requestedWhileListing(3);
    await sleep(TICK_MS);
    const [, before, gone, after] = early.folders;
    write(`${before}/added.md`);
    fs.rmSync(path.join(root, gone), { recursive: true });
    // Read after the request, and changed since: the answer may be from before the change; the watchers see it.
    write(`${after}/added.md`);
    const check = recheck(fs, early);
    const { index, logged } = open({ prelisting: async () => ({ ...early, checking: true, check: Promise.resolve(check) }), racyMs: 0 });
    const first = await listed(index);
    assert.ok(first.includes(`${before}/added.md`));
    assert.ok(!first.some((f) => f.startsWith(`${gone}/`)), `nothing under ${gone}`);
    assert.match(startLine(logged), new RegExp(`3 of its ${early.folders.length} folders checked by the worker, 3 read again`));
    assert.deepEqual(await listed(index), await crawl());
    assert.ok((await listed(index)).includes(`${after}/added.md`));
  });

  it("answers from the protocol thread's check of the folders read before the request, made while the worker lists the rest", async () => {
    const heads: PrelistHead[] = [];
    const early = requestedWhileListing(3, heads);
    // Sent once, as the request was seen: the three folders stat'ed before it, with their stats.
    assert.equal(heads.length, 1);
    assert.deepEqual(heads[0], { root, folders: early.folders.slice(0, 3), stats: early.stats.slice(0, 9) });
    await sleep(TICK_MS);
    const [, before, gone, after] = early.folders;
    write(`${before}/added.md`);
    fs.rmSync(path.join(root, gone), { recursive: true });
    write(`${after}/added.md`);
    const check = await checkHead(heads[0]);
    assert.deepEqual(check, { ...recheck(fs, early), by: 'protocol thread' });
    const { index, logged } = open({ prelisting: async () => ({ ...early, checking: true, check: Promise.resolve(check) }), racyMs: 0 });
    const first = await listed(index);
    assert.ok(first.includes(`${before}/added.md`));
    assert.ok(!first.some((f) => f.startsWith(`${gone}/`)), `nothing under ${gone}`);
    assert.match(startLine(logged), new RegExp(`3 of its ${early.folders.length} folders checked by the protocol thread, 3 read again`));
    assert.deepEqual(await listed(index), await crawl());
  });

  it('takes, from the messages a worker sends, the listing with the check of its head or the check the worker sends', async () => {
    const heads: PrelistHead[] = [];
    const early = requestedWhileListing(3, heads);
    assert.equal(heads.length, 1);
    await sleep(TICK_MS);
    write(`${early.folders[1]}/added.md`);
    const expected = { ...recheck(fs, early), by: 'protocol thread' };
    // A head, then the listing: its check is this thread's check of the head, made after the head came.
    const worker = new EventEmitter();
    const received = receivePrelisting(worker as unknown as Worker);
    worker.emit('message', { type: 'prelisting-head', head: heads[0] });
    worker.emit('message', { type: 'prelisting', listing: { ...early, checking: true } });
    const listing = await received;
    assert.deepEqual(listing?.joined, early.joined);
    assert.deepEqual(await listing?.check, expected);
    assert.notDeepEqual(expected.stats.slice(3, 6), early.stats.slice(3, 6), 'the folder that changed after the request');
    // Then the files as list_files writes them, the last message.
    assert.equal(worker.listenerCount('message'), 1, 'listening until the last message');
    const bytes = new TextEncoder().encode('a.md\\",\\"b.md');
    worker.emit('message', { type: 'prelisting-bytes', bytes });
    assert.deepEqual(await listing?.encoded, [bytes]);
    assert.equal(worker.listenerCount('message'), 0, 'listeners gone');
    // No head (the request came as the listing ended): the worker's check, sent after the listing.
    const second = new EventEmitter();
    const again = receivePrelisting(second as unknown as Worker);
    second.emit('message', { type: 'prelisting', listing: { ...early, checking: true } });
    const byWorker = { stats: [1, 2, 3], by: 'worker' };
    second.emit('message', { type: 'prelisting-check', check: byWorker });
    assert.deepEqual(await (await again)?.check, byWorker);
    second.emit('message', { type: 'prelisting-bytes', bytes: undefined });
    assert.equal(await (await again)?.encoded, undefined, 'a path needed escaping');
    // The worker gone before its check: the listing, with no check and no files written.
    const third = new EventEmitter();
    const gone = receivePrelisting(third as unknown as Worker);
    third.emit('message', { type: 'prelisting', listing: { ...early, checking: true } });
    third.emit('exit', 1);
    assert.equal(await (await gone)?.check, undefined);
    assert.equal(await (await gone)?.encoded, undefined);
    assert.equal(third.listenerCount('message'), 0);
  });

  it('checks a long head in slices, each folder as the worker would', async () => {
    for (let i = 0; i < 600; i++) write(`many/f${i}/n.md`);
    const early = prelist(fs, root, 1_000_000);
    assert.ok(early && early.folders.length > 600);
    await sleep(TICK_MS);
    write('many/f10/added.md');
    fs.rmSync(path.join(root, 'many/f500'), { recursive: true });
    const check = await checkHead({ root, folders: early.folders, stats: early.stats });
    assert.deepEqual(check, { ...recheck(fs, early), by: 'protocol thread' });
    const at = (rel: string) => early.folders.indexOf(rel);
    assert.notDeepEqual(check.stats.slice(3 * at('many/f10'), 3 * at('many/f10') + 3), early.stats.slice(3 * at('many/f10'), 3 * at('many/f10') + 3));
    assert.ok(check.stats.slice(3 * at('many/f500'), 3 * at('many/f500') + 3).every(Number.isNaN));
  });

  it('takes the exclude globs the same way whether or not the folders hold what the globs need', async () => {
    write('media/v.git/n.md'); // a folder whose name holds ".git" but is not excluded
    for (const excludePatterns of [DEFAULT_EXCLUDES, [...DEFAULT_EXCLUDES, 'archive/**', 'notes/deep'], [...DEFAULT_EXCLUDES, '**/*.git']]) {
      const early = prelist(fs, root, 1_000_000);
      assert.ok(early);
      const excluded = globMatcher(compileGlobs(excludePatterns));
      const fast = filterPrelisting(early, excluded, excluded.needles);
      assert.deepEqual(fast, filterPrelisting(early, excluded), excludePatterns.join(' '));
      assert.deepEqual(fast.files, await crawl(excludePatterns));
      assert.deepEqual(fast.places.map((i) => early.folders[i]), fast.folders);
    }
    fs.rmSync(path.join(root, 'media/v.git'), { recursive: true });
    const early = prelist(fs, root, 1_000_000);
    assert.ok(early);
    const excluded = globMatcher(compileGlobs(DEFAULT_EXCLUDES));
    assert.deepEqual(filterPrelisting(early, excluded, excluded.needles), filterPrelisting(early, excluded));
  });

  it('comes out sorted as the crawl sorts, for random trees', async () => {
    const letters = ['a', 'b', 'A', '-', '.', '0', '_', ' ', 'é', '\u{1F600}', '\uFFFD', 'z'];
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let tree = 0; tree < 5; tree++) {
      fs.rmSync(root, { recursive: true, force: true });
      fs.mkdirSync(root);
      for (let i = 0; i < 60; i++) {
        const depth = 1 + random(3);
        const parts = Array.from({ length: depth }, () => Array.from({ length: 1 + random(3) }, () => letters[random(letters.length)]).join(''));
        if (parts.some((part) => /^\.+$/.test(part))) continue; // "." and ".." are not names
        try {
          write(parts.join('/'));
        } catch {
          // a name already taken by a file or a folder
        }
      }
      assert.deepEqual(prelist(fs, root, 1_000_000)?.joined.split('\0'), await crawl(), `tree ${tree}`);
    }
  });

  it('gives up past its entry limit, on a missing folder, and skips symbolic links', async () => {
    assert.equal(prelist(fs, root, 5), undefined);
    assert.equal(prelist(fs, path.join(root, 'missing'), 1_000_000), undefined);
    fs.symlinkSync(path.join(root, 'notes'), path.join(root, 'linked'));
    fs.symlinkSync(path.join(root, 'a.md'), path.join(root, 'linked.md'));
    assert.deepEqual(prelist(fs, root, 1_000_000)?.joined.split('\0'), await crawl());
  });

  it('starts from an unchanged early listing without reading a folder, and watches every folder after', async () => {
    const early = prelist(fs, root, 1_000_000);
    await sleep(TICK_MS);
    const { index, logged } = open({ prelisting: async () => early, racyMs: 0 });
    assert.deepEqual(await listed(index), await crawl());
    assert.equal(readAgain(logged), 0);
    // A request after the first ones waits for the watchers; a change after that is seen as a watcher reports it.
    assert.deepEqual(await listed(index), await crawl());
    assert.equal(index.stats().watchedFolders, early?.folders.length);
    write('notes/deep/later.md');
    assert.ok((await listed(index)).includes('notes/deep/later.md'));
    assert.deepEqual(await listed(index), await crawl());
  });

  it("keeps the worker's bytes of its files while the list is unchanged, and only for a list that is all of them", async () => {
    const early = prelist(fs, root, 1_000_000);
    assert.ok(early);
    await sleep(TICK_MS);
    const bytes = [new TextEncoder().encode('stands for the files')];
    const { index } = open({ prelisting: async () => ({ ...early, encoded: Promise.resolve(bytes) }), racyMs: 0 });
    await listed(index);
    assert.deepEqual(index.encodedFiles().body, bytes);
    // A change makes another list: its bytes are not known yet.
    write('notes/deep/later.md');
    assert.ok((await listed(index)).includes('notes/deep/later.md'));
    assert.equal(index.encodedFiles().body, undefined);
    // With more exclude globs, the list is not all of the early listing's files: the bytes are not taken.
    const other = open({ prelisting: async () => ({ ...early, encoded: Promise.resolve(bytes) }), racyMs: 0, excludePatterns: [...DEFAULT_EXCLUDES, 'archive/**'] });
    await listed(other.index);
    assert.equal(other.index.encodedFiles().body, undefined);
  });

  it("has a request for the whole list wait for the worker's bytes of it, at most a quarter of a second", async () => {
    const early = prelist(fs, root, 1_000_000);
    assert.ok(early);
    await sleep(TICK_MS);
    const bytes = [new TextEncoder().encode('stands for the files')];
    // The bytes come 100 ms after the listing: a request that writes the whole list waits for them, another does not.
    const later = open({ prelisting: async () => ({ ...early, encoded: sleep(100).then(() => bytes) }), racyMs: 0 }).index;
    assert.equal(await later.fresh(), true);
    assert.equal(later.encodedFiles().body, undefined, 'not waited for');
    assert.equal(await later.fresh(false, true), true);
    assert.deepEqual(later.encodedFiles().body, bytes);
    // Bytes that never come hold the request 250 ms, once.
    const never = open({ prelisting: async () => ({ ...early, encoded: new Promise<never>(() => undefined) }), racyMs: 0 }).index;
    const started = Date.now();
    assert.equal(await never.fresh(false, true), true);
    const waited = Date.now() - started;
    assert.ok(waited >= 240 && waited < 2000, `${waited} ms`);
    assert.equal(never.encodedFiles().body, undefined);
    const again = Date.now();
    assert.equal(await never.fresh(false, true), true);
    assert.ok(Date.now() - again < 200, 'waited for once');
  });

  it('reads again each folder that changed since the early listing: files added, removed, folders new and gone', async () => {
    const early = prelist(fs, root, 1_000_000);
    await sleep(TICK_MS);
    write('notes/new.md');
    fs.rmSync(path.join(root, 'notes/deep/y.md'));
    write('fresh/sub/z.md');
    fs.rmSync(path.join(root, 'archive'), { recursive: true });
    fs.renameSync(path.join(root, 'notes/deep/deeper'), path.join(root, 'notes/moved'));
    const { index, logged } = open({ prelisting: async () => early, racyMs: 0 });
    const files = await listed(index);
    assert.deepEqual(files, await crawl());
    for (const added of ['notes/new.md', 'fresh/sub/z.md', 'notes/moved/z.md']) assert.ok(files.includes(added), added);
    for (const gone of ['notes/deep/y.md', 'archive/old.md', 'notes/deep/deeper/z.md']) assert.ok(!files.includes(gone), gone);
    // The root (fresh/, archive/), notes/ (new.md, moved/), notes/deep (y.md, deeper/) and the gone folders.
    assert.ok(readAgain(logged) >= 3);
  });

  it('reads again a folder whose change left its modification time as it was: its change time tells', async () => {
    const folder = path.join(root, 'notes/deep');
    // Whole seconds, which set back exactly.
    const SECONDS = 1_700_000_000;
    fs.utimesSync(folder, SECONDS, SECONDS);
    await sleep(TICK_MS);
    const early = prelist(fs, root, 1_000_000);
    assert.ok(early);
    await sleep(TICK_MS);
    const before = fs.statSync(folder);
    write('notes/deep/hidden-change.md');
    // As a sync tool restoring times does: the modification time goes back, the change time moves on.
    fs.utimesSync(folder, SECONDS, SECONDS);
    const after = fs.statSync(folder);
    assert.equal(after.mtimeMs, before.mtimeMs);
    assert.notEqual(after.ctimeMs, before.ctimeMs);
    const { index, logged } = open({ prelisting: async () => early, racyMs: 0 });
    const files = await listed(index);
    assert.ok(files.includes('notes/deep/hidden-change.md'));
    assert.deepEqual(files, await crawl());
    assert.equal(readAgain(logged), 1);
  });

  it('reads again a folder whose times are too recent to tell a change by', async () => {
    const early = prelist(fs, root, 1_000_000);
    // Same-tick changes leave the times equal: with the default margin, folders changed within it are read again.
    const { index, logged } = open({ prelisting: async () => early });
    assert.deepEqual(await listed(index), await crawl());
    assert.equal(readAgain(logged), early?.folders.length);
  });

  it('reads a tree of nested folders that are all too recent to tell once, not once per folder above each', async () => {
    // A fresh clone: every folder is new. Read one by one, each folder would be read again as many times as it has
    // folders above it (20 100 reads for these 200; half a million, 50 s, for 1 000).
    const depth = 200;
    const chain = Array.from({ length: depth }, () => 'n').join('/');
    for (let i = 10; i <= depth; i += 10) write(`${chain.slice(0, 2 * i - 1)}/note${i}.md`);
    const early = prelist(fs, root, 1_000_000);
    assert.ok(early);
    let watches = 0;
    const { index, logged } = open({
      prelisting: async () => early,
      watchFolder: (folder, options, listener) => (watches++, fs.watch(folder, options, listener)),
    });
    const files = await listed(index);
    assert.equal(readAgain(logged), early.folders.length, 'every folder is too recent to tell');
    assert.deepEqual(files, await crawl());
    assert.equal(files.filter((f) => f.startsWith('n/')).length, depth / 10);
    assert.ok(watches <= 2 * early.folders.length, `${watches} folders watched (read) for ${early.folders.length} folders`);
  });

  it('answers the requests waiting for the listing before watching, and sees a change made before the watchers', async () => {
    const early = prelist(fs, root, 1_000_000);
    await sleep(TICK_MS);
    let watches = 0;
    const { index } = open({
      prelisting: async () => early,
      racyMs: 0,
      watchFolder: (folder, options, listener) => {
        // Between the check of the early listing and the watchers: a file is added to a folder checked already.
        if (watches++ === 0) write('notes/deep/between.md');
        return fs.watch(folder, options, listener);
      },
    });
    const first = await listed(index);
    assert.equal(watches, 0, 'the waiting request was answered before any folder was watched');
    assert.ok(!first.includes('notes/deep/between.md'));
    const next = await listed(index);
    assert.ok(watches > 0);
    assert.ok(next.includes('notes/deep/between.md'), 'the next request sees it');
    assert.deepEqual(next, await crawl());
  });

  it('waits a moment for a request before it checks a listing taken in with none waiting', async () => {
    for (const [checkGraceMs, watchedFirst] of [[5_000, false], [0, true]] as const) {
      const early = prelist(fs, root, 1_000_000);
      await sleep(TICK_MS);
      let watches = 0;
      const { index, logged } = open({
        prelisting: async () => early,
        racyMs: 0,
        checkGraceMs,
        watchFolder: (folder, options, listener) => (watches++, fs.watch(folder, options, listener)),
      });
      // Not a request: the listing is taken in while the server is idle; a request comes a moment later.
      void index.listing();
      await sleep(TICK_MS);
      const files = await listed(index);
      // Within the wait, the request is answered from the checked listing at once; after it, it waits for the watchers.
      assert.equal(watches > 0, watchedFirst, `grace ${checkGraceMs} ms: ${watches} folders watched before the answer; ${logged.join(' | ')}`);
      assert.deepEqual(files, await crawl());
      index.dispose();
    }
  });

  it('makes a request that arrives while it watches the folders wait for the watchers', async () => {
    for (let i = 0; i < 40; i++) write(`many/f${String(i).padStart(2, '0')}/n.md`);
    await sleep(TICK_MS);
    const early = prelist(fs, root, 1_000_000);
    assert.ok(early);
    await sleep(TICK_MS);
    const { index } = open({
      prelisting: async () => early,
      racyMs: 0,
      // Slow watches: watching takes several slices, so the next request arrives in the middle of it.
      watchFolder: (folder, options, listener) => {
        const until = Date.now() + 2;
        while (Date.now() < until);
        return fs.watch(folder, options, listener);
      },
    });
    await listed(index);
    // Changed after the check, in the folder watched last.
    const last = early.folders[early.folders.length - 1];
    write(`${last}/after-check.md`);
    const next = await listed(index);
    assert.ok(next.includes(`${last}/after-check.md`), 'the request waited for every folder to be watched and checked');
    assert.deepEqual(next, await crawl());
  });

  it('keeps no text before its folders are watched: a text changed before then is never kept stale', async () => {
    const { index, release } = await gated();
    await listed(index);
    let cached = false;
    const caching = index.caching().then(() => (cached = true));
    await sleep(300);
    assert.equal(cached, false, 'no text is read before the folders are watched');
    assert.equal(index.stats().cachedFiles, 0);
    // A content change does not change its folder's times: only a watcher (or reading after it) sees it.
    write('notes/x.md', 'changed before the watchers\n');
    release();
    await caching;
    await listed(index);
    await index.caching();
    const texts = (await crawl()).filter((f) => f.endsWith('.md') || f.endsWith('.txt'));
    assert.equal(index.stats().cachedFiles, texts.length);
    const q = { query: 'changed before the watchers', caseSensitive: true, regex: false, wholeWord: false, maxResults: 10 };
    const { results } = await index.search(index.textFiles(), q);
    assert.deepEqual(
      results.map((r) => r.file),
      ['notes/x.md'],
    );
  });

  it('keeps no file size taken before its folders are watched', async () => {
    const { index, release } = await gated();
    await listed(index);
    assert.deepEqual(
      (await index.noteStats(['a.md'])).map((s) => s.size),
      [fs.statSync(path.join(root, 'a.md')).size],
    );
    write('a.md', 'a longer text than before, written before the watchers\n');
    release();
    await listed(index);
    assert.deepEqual(
      (await index.noteStats(['a.md'])).map((s) => s.size),
      [fs.statSync(path.join(root, 'a.md')).size],
    );
  });

  it('tells when the requests that waited for the listing are answered and written out (answered)', async () => {
    const early = prelist(fs, root, 1_000_000);
    let open_!: () => void;
    const gate = new Promise<void>((resolve) => (open_ = resolve));
    const { index } = open({ prelisting: async () => early, waitForOutput: () => gate });
    const order: string[] = [];
    const requests = [index.fresh().then(() => order.push('request 1')), index.fresh().then(() => order.push('request 2'))];
    const answered = index.answered().then(() => order.push('answered'));
    await Promise.all(requests);
    await sleep(50);
    // The two requests come back in either order (each waits on its own file system round trip).
    assert.deepEqual([...order].sort(), ['request 1', 'request 2'], 'not before the replies are written out');
    open_();
    await answered;
    assert.equal(order.length, 3);
    assert.equal(order[2], 'answered');
    // With nothing left to write, it still waits for the requests.
    const again = open({ prelisting: async () => prelist(fs, root, 1_000_000) }).index;
    const seen: string[] = [];
    await Promise.all([again.answered().then(() => seen.push('answered')), again.fresh().then(() => seen.push('request'))]);
    assert.deepEqual(seen, ['request', 'answered']);
  });

  it('is not used when the settings list what it leaves out (hidden names, node_modules)', async () => {
    for (const [excludePatterns, showHiddenFiles] of [
      [DEFAULT_EXCLUDES, true],
      [['**/.git/**'], false],
    ] as Array<[string[], boolean]>) {
      let asked = false;
      const { index, logged } = open({
        excludePatterns,
        showHiddenFiles,
        prelisting: async () => {
          asked = true;
          return prelist(fs, root, 1_000_000);
        },
      });
      assert.deepEqual(await listed(index), await crawl(excludePatterns, showHiddenFiles));
      assert.equal(asked, false);
      assert.ok(!logged.some((m) => m.includes('early listing')));
    }
  });

  it('is not used when it lists another folder, or none came', async () => {
    const other = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-prelist-other-')));
    try {
      fs.writeFileSync(path.join(other, 'elsewhere.md'), 'x');
      for (const early of [prelist(fs, other, 1_000_000), undefined]) {
        const { index, logged } = open({ prelisting: async () => early });
        assert.deepEqual(await listed(index), await crawl());
        assert.ok(!logged.some((m) => m.includes('from the early listing')));
      }
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  });

  it("has the loader's worker write its files as list_files' answer holds them, when no path needs escaping", async () => {
    // The tree holds an emoji (a pair of UTF-16 units) and U+FFFD among ASCII names: rare, so written as escapes.
    // A name with a quote, which JSON escapes, leaves the answer to list_files' own JSON.
    const quoted = path.join(root, 'notes/say "hi".md');
    try {
      for (const withQuote of [false, true]) {
        if (withQuote) fs.writeFileSync(quoted, 'x');
        await sleep(TICK_MS);
        assert.ok(prestartTextWorker({}, root));
        const { index } = open({ racyMs: 0 });
        assert.equal(await index.fresh(false, true), true);
        const files = await crawl();
        assert.deepEqual(index.listFiles(), files);
        const body = index.encodedFiles().body;
        if (withQuote) assert.equal(body, undefined);
        else {
          const written = Buffer.concat(body ?? []).toString();
          assert.equal(JSON.parse(`"${written}"`), files.join('","'));
          assert.ok(written.includes('notes/\\ud83d\\ude00.md') && written.includes('notes/\\ufffd.md'), written);
          assert.ok(!/[\u0100-\uffff]/.test(written), 'within Latin-1');
        }
        index.dispose();
      }
    } finally {
      fs.rmSync(quoted, { force: true });
    }
  });

  for (const [name, excludePatterns] of [
    ['the default exclude globs', DEFAULT_EXCLUDES],
    ['more exclude globs, applied to its listing', [...DEFAULT_EXCLUDES, 'archive/**', '**/*.txt', 'notes/deep']],
    ['a glob that excludes files only', [...DEFAULT_EXCLUDES, '**/*.txt']],
  ] as Array<[string, string[]]>) {
    it(`comes from the loader's worker, with ${name}`, async () => {
      assert.ok(prestartTextWorker({}, root), 'the loader would start a worker that lists the workspace');
      // No margin: the folders (made a tick before the worker lists them) are trusted, so its filter is what counts.
      const { index, logged } = open({ excludePatterns, racyMs: 0 });
      // The request comes as the worker starts: the folders it read before are checked (by the worker when it saw the
      // request only once done, else by the protocol thread), or the index checks them all.
      assert.deepEqual(await listed(index), await crawl(excludePatterns));
      assert.match(startLine(logged), /(\d of its 8 folders checked by the (worker|protocol thread)|8 folders checked), 0 read again/);
      assert.deepEqual(await listed(index), await crawl(excludePatterns));
    });
  }

  it("is checked by none when a request waited before the loader's worker began: it read every folder after", async () => {
    const requested = new Int32Array(new SharedArrayBuffer(4)).fill(1);
    assert.ok(prestartTextWorker({}, root, requested));
    const { index, logged } = open({ racyMs: 0 });
    assert.deepEqual(await listed(index), await crawl());
    assert.match(startLine(logged), /0 of its 8 folders checked by the protocol thread, 0 read again/);
  });

  it("is checked on the protocol thread when the loader's worker listed before any request", async () => {
    const worker = prestartTextWorker({}, root);
    assert.ok(worker);
    await new Promise<void>((resolve) => worker.on('message', (m: { type?: string }) => m.type === 'prelisting' && resolve()));
    await sleep(TICK_MS);
    write('notes/deep/after.md');
    const { index, logged } = open({ racyMs: 0 });
    // Not a request: the index takes the listing in, and checks it after its short wait for one.
    await index.listing();
    assert.match(startLine(logged), /8 folders checked, 1 read again/);
    const files = await listed(index);
    assert.ok(files.includes('notes/deep/after.md'));
    assert.deepEqual(files, await crawl());
  });

  it("is checked by the protocol thread and the worker together when the loader's worker listed a large tree before a request", async () => {
    for (let i = 0; i < 300; i++) write(`many/f${String(i).padStart(3, '0')}/n.md`);
    await sleep(TICK_MS);
    const listing = async () => {
      const worker = prestartTextWorker({}, root);
      assert.ok(worker);
      const early = await new Promise<Prelisting>((resolve) => worker.on('message', (m: { type?: string; listing?: Prelisting }) => m.type === 'prelisting' && m.listing && resolve(m.listing)));
      assert.ok(early.folders.length > 300);
      await sleep(TICK_MS);
      return early;
    };
    // Changed after the listing, before the request: one folder in each half, and one gone in the second.
    const change = (i: number) => {
      write(`many/f${String(i).padStart(3, '0')}/added.md`);
      write(`many/f${String(i + 250).padStart(3, '0')}/added.md`);
      fs.rmSync(path.join(root, `many/f${String(i + 290).padStart(3, '0')}`), { recursive: true });
    };
    const start = async (answer: 'now' | 'stopped' | 'real') => {
      const { folders } = await listing();
      const { index, logged } = open({ racyMs: 0, checkGraceMs: 60_000 });
      // The worker's half: answered at once with the stats of now, or not at all (it stopped), or by the worker.
      const texts = (index as unknown as { textWorker(): { recheck(head: PrelistHead): Promise<number[] | undefined> } }).textWorker();
      if (answer !== 'real') texts.recheck = async (head) => (answer === 'now' ? recheck(fs, head).stats : undefined);
      return { index, logged, folders };
    };
    for (const [i, answer] of [[1, 'now'], [2, 'stopped'], [3, 'real']] as const) {
      const { index, logged, folders } = await start(answer);
      change(i);
      const files = await listed(index);
      const byWorker = answer === 'now' ? folders.length - (folders.length >> 1) : answer === 'stopped' ? 0 : '\\d+';
      // The folders with a file added, the one gone, and `many`, which lost it.
      assert.match(startLine(logged), new RegExp(`${folders.length} folders checked, ${byWorker} of them by the worker, 4 read again`), answer);
      assert.deepEqual(files, await crawl(), answer);
      index.dispose();
      logged.length = 0;
    }
  });

  it("is not used when the loader's worker listed another folder", async () => {
    assert.ok(prestartTextWorker({}, path.join(root, 'notes')));
    const { index, logged } = open();
    assert.deepEqual(await listed(index), await crawl());
    assert.ok(!logged.some((m) => m.includes('from the early listing')));
  });
});
