// The early listing kept between starts: the next start's worker stats the kept listing's folders instead of reading
// them, and reads only those that changed (or are too recent to tell). Whatever changed in between, the listing
// it makes is the listing a fresh read makes.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Worker } from 'node:worker_threads';
import {
  keepListing,
  KEPT_LISTING_FILE_SYSTEMS,
  KEPT_LISTING_VERSION,
  keptListingAllowed,
  keptListingText,
  parseKeptListing,
  readKeptListing,
} from '../../../src/core/workspace/kept-listing';
import { EARLY_LISTING_MIN_FILES, keptListingFile, rememberListingSize } from '../../../src/core/workspace/listing-hint';
import { prelist, type KeptListing, type Prelisting } from '../../../src/core/workspace/prelist';
import { discardPrestartedWorker, prestartTextWorker } from '../../../src/core/workspace/worker-boot';

/** Longer than the coarsest clock tick a file system time is taken from on Linux (HZ=100). */
const TICK_MS = 30;
const EXT4 = 0xef53;
const NFS = 0x6969;

describe('the early listing kept between starts', function () {
  this.timeout(120_000);
  let root: string;
  let scratch: string;

  beforeEach(() => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-kept-'));
    root = path.join(scratch, 'notes');
    fs.mkdirSync(root);
  });

  afterEach(() => {
    discardPrestartedWorker();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const write = (rel: string, text = `# ${rel}\n`) => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  };

  /** An fs whose folder reads are counted (by workspace-relative path). */
  function counting(): { fs: typeof fs; reads: string[] } {
    const reads: string[] = [];
    const real = fs.realpathSync(root);
    const readdirSync = ((dir: string, options: unknown) => {
      reads.push(path.relative(real, dir).split(path.sep).join('/'));
      return fs.readdirSync(dir, options as { withFileTypes: true });
    }) as typeof fs.readdirSync;
    return { fs: { ...fs, readdirSync } as typeof fs, reads };
  }

  /** The listing made now, kept as the worker keeps it (through the file's text). */
  function keep(racyMs = 0): KeptListing {
    const listing = prelist(fs, root, 1_000_000, undefined, undefined, undefined, racyMs);
    assert.ok(listing);
    const kept = parseKeptListing(keptListingText(listing, fs.statSync(root).dev, KEPT_LISTING_VERSION), KEPT_LISTING_VERSION);
    assert.ok(kept, 'the kept text is read back');
    return kept;
  }

  /** What the listing, the kept one given, and a fresh read both make (the listing's parts a receiver uses). */
  function both(kept: KeptListing, racyMs = 0): { fromKept: Prelisting; fresh: Prelisting; reads: string[] } {
    const { fs: counted, reads } = counting();
    const fromKept = prelist(counted, root, 1_000_000, undefined, undefined, kept, racyMs);
    const fresh = prelist(fs, root, 1_000_000);
    assert.ok(fromKept && fresh);
    assert.deepEqual(fromKept.joined.split('\0'), fresh.joined.split('\0'), 'the same files');
    assert.deepEqual(fromKept.folders, fresh.folders, 'the same folders');
    assert.deepEqual(fromKept.stats, fresh.stats, 'the stats taken now');
    return { fromKept, fresh, reads };
  }

  function someNotes() {
    for (const a of ['alpha', 'beta', 'gamma']) {
      for (const b of ['one', 'two']) {
        write(`${a}/${b}/note ${a} ${b}.md`);
        write(`${a}/${b}/deeper/more.md`);
      }
      write(`${a}/index.md`);
    }
    write('root.md');
    write('.hidden/secret.md');
    write('node_modules/pkg/readme.md');
  }

  it('is taken whole, without reading a folder, when no folder changed', async () => {
    someNotes();
    await sleep(TICK_MS);
    const kept = keep();
    await sleep(TICK_MS);
    const { fromKept, reads } = both(kept);
    assert.deepEqual(reads, []);
    assert.deepEqual(fromKept.kept, { reused: kept.folders.length, whole: true });
    assert.ok(fromKept.started >= kept.started, 'it began now, not when the kept listing did');
  });

  it('reads only the folders that changed, and the new ones, with everything in them', async () => {
    someNotes();
    await sleep(TICK_MS);
    const kept = keep();
    await sleep(TICK_MS);
    write('beta/added.md'); // beta changed
    write('gamma/two/new folder/a/b.md'); // gamma/two changed, three new folders
    fs.rmSync(path.join(root, 'alpha/one'), { recursive: true }); // alpha changed, two folders gone
    await sleep(TICK_MS);
    const { fromKept, reads } = both(kept);
    assert.deepEqual(reads.sort(), ['beta', 'alpha', 'gamma/two', 'gamma/two/new folder', 'gamma/two/new folder/a'].sort());
    assert.ok(fromKept.joined.split('\0').includes('gamma/two/new folder/a/b.md'));
    assert.ok(!fromKept.joined.includes('alpha/one/'));
    assert.deepEqual(fromKept.kept, { reused: fromKept.folders.length - 5, whole: false });
  });

  it('reads a folder whose modification time was set back after a change (its change time tells)', async () => {
    someNotes();
    const folder = path.join(root, 'beta/one');
    // A time that can be set again exactly (the same Date gives the same time).
    const then = new Date(Date.now() - 60_000);
    fs.utimesSync(folder, then, then);
    const setBack = fs.statSync(folder).mtimeMs;
    await sleep(TICK_MS);
    const kept = keep();
    await sleep(TICK_MS);
    write('beta/one/synced.md');
    assert.notEqual(fs.statSync(folder).mtimeMs, setBack);
    fs.utimesSync(folder, then, then);
    assert.equal(fs.statSync(folder).mtimeMs, setBack);
    await sleep(TICK_MS);
    const { fromKept, reads } = both(kept);
    assert.deepEqual(reads, ['beta/one']);
    assert.ok(fromKept.joined.split('\0').includes('beta/one/synced.md'));
  });

  it('reads every folder whose times are within the racy margin of the kept listing, another device, or another root', async () => {
    someNotes();
    await sleep(TICK_MS);
    const kept = keep();
    const folders = kept.folders.length;
    // Made a moment after the folders changed: none of them can tell.
    assert.equal(both(kept, 60_000).reads.length, folders);
    assert.equal(both({ ...kept, dev: kept.dev + 1 }).reads.length, folders);
    const { fs: counted, reads } = counting();
    const listing = prelist(counted, root, 1_000_000, undefined, undefined, { ...kept, root: `${kept.root}-other` }, 0);
    assert.equal(reads.length, folders);
    assert.equal(listing?.kept, undefined, 'a kept listing of another folder is not looked at');
  });

  it('replaces a file by a folder of the same name, and a folder by a file, as a fresh read does', async () => {
    someNotes();
    await sleep(TICK_MS);
    const kept = keep();
    await sleep(TICK_MS);
    fs.rmSync(path.join(root, 'root.md'));
    write('root.md/inside.md');
    fs.rmSync(path.join(root, 'gamma/one'), { recursive: true });
    write('gamma/one', 'now a file');
    await sleep(TICK_MS);
    const { fromKept } = both(kept);
    assert.ok(fromKept.joined.split('\0').includes('root.md/inside.md'));
    assert.ok(fromKept.joined.split('\0').includes('gamma/one'));
  });

  it('is a fresh read for random trees changed at random', async () => {
    const letters = ['a', 'b', 'A', '-', '.', '0', '_', ' ', 'é', '\u{1F600}', '\uFFFD', 'z', '\n'];
    let seed = 11;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const randomPath = () => {
      const parts = Array.from({ length: 1 + random(3) }, () => Array.from({ length: 1 + random(3) }, () => letters[random(letters.length)]).join(''));
      return parts.some((part) => /^\.+$/.test(part)) ? undefined : parts.join('/');
    };
    const attempt = (change: () => void) => {
      try {
        change();
      } catch {
        // a name already taken by a file or a folder, or gone
      }
    };
    for (let tree = 0; tree < 6; tree++) {
      fs.rmSync(root, { recursive: true, force: true });
      fs.mkdirSync(root);
      for (let i = 0; i < 60; i++) {
        const rel = randomPath();
        if (rel) attempt(() => write(rel));
      }
      await sleep(TICK_MS);
      const kept = keep();
      await sleep(TICK_MS);
      for (let i = 0; i < 8; i++) {
        const rel = randomPath();
        if (!rel) continue;
        const target = path.join(root, rel);
        const kind = random(4);
        if (kind === 0) attempt(() => write(rel));
        else if (kind === 1) attempt(() => fs.rmSync(target, { recursive: true }));
        else if (kind === 2) attempt(() => fs.renameSync(target, path.join(root, `${rel}-moved`)));
        else attempt(() => fs.mkdirSync(target, { recursive: true }));
      }
      await sleep(TICK_MS);
      const { fromKept, fresh, reads } = both(kept);
      assert.equal(fromKept.joined, fresh.joined, `tree ${tree}`);
      assert.ok(fromKept.kept && fromKept.kept.reused > 0 && reads.length > 0, `tree ${tree}: some folders taken from the kept listing, some read`);
    }
  });

  it('gives up on a kept listing that does not hold together, and lists as without one', async () => {
    someNotes();
    await sleep(TICK_MS);
    const kept = keep();
    await sleep(TICK_MS);
    write('beta/added.md');
    const orphan = { ...kept, joined: `${kept.joined}\0nowhere/x.md` };
    const { reads, fromKept } = both(orphan);
    assert.equal(reads.length, kept.folders.length);
    assert.deepEqual(fromKept.kept, { reused: 0, whole: false });
  });

  describe('its file', () => {
    const listing: Prelisting = {
      root: '/w',
      started: 1_700_000_000_123.25,
      finished: 1_700_000_000_200,
      folders: ['', 'a', 'a/line\nbreak', 'é 😀'],
      stats: [1.5, 2.25, 3, NaN, NaN, NaN, 7, 8, 9, 10, 11, 12],
      joined: ['a.md', 'a/line\nbreak/x.md', 'é 😀/y.md'].join('\0'),
    };

    it('holds the listing, its device and when it began, and gives them back', () => {
      const kept = parseKeptListing(keptListingText(listing, 2049, 1), 1);
      assert.deepEqual(kept, { root: '/w', dev: 2049, started: listing.started, folders: listing.folders, stats: listing.stats, joined: listing.joined });
      assert.deepEqual(parseKeptListing(keptListingText({ ...listing, folders: [''], stats: [1, 2, 3], joined: '' }, 1, 1), 1)?.joined, '');
    });

    it('is not used when of another version, cut short, longer, or not what it should be', () => {
      const text = keptListingText(listing, 2049, 1);
      assert.equal(parseKeptListing(text, 2), undefined);
      assert.equal(parseKeptListing(text.slice(0, -1), 1), undefined);
      assert.equal(parseKeptListing(`${text}x`, 1), undefined);
      assert.equal(parseKeptListing('', 1), undefined);
      assert.equal(parseKeptListing('not json\n', 1), undefined);
      assert.equal(parseKeptListing(text.replace('"stats":', '"stats":-'), 1), undefined);
      const header = JSON.parse(text.slice(0, text.indexOf('\n')));
      const body = text.slice(text.indexOf('\n') + 1);
      assert.equal(parseKeptListing(`${JSON.stringify({ ...header, root: 5 })}\n${body}`, 1), undefined);
      // The stats of one folder less than there are folders.
      const short = keptListingText({ ...listing, stats: listing.stats.slice(3) }, 2049, 1);
      assert.equal(parseKeptListing(short, 1), undefined);
      // Stats that are not numbers.
      const words = `${JSON.stringify({ ...header, stats: 5 })}\n["a"]${body.slice(header.stats)}`;
      assert.equal(parseKeptListing(words, 1), undefined);
    });

    it('is kept and used only on the local file systems named, and not when statfs fails', () => {
      const on = (type: number | Error) =>
        ({
          ...fs,
          statfsSync: () => {
            if (type instanceof Error) throw type;
            return { type };
          },
        }) as unknown as typeof fs;
      assert.equal(keptListingAllowed(on(EXT4), '/w', KEPT_LISTING_FILE_SYSTEMS), true);
      assert.equal(keptListingAllowed(on(NFS), '/w', KEPT_LISTING_FILE_SYSTEMS), false);
      assert.equal(keptListingAllowed(on(new Error('EACCES')), '/w', KEPT_LISTING_FILE_SYSTEMS), false);
      const file = path.join(scratch, 'kept');
      fs.writeFileSync(file, keptListingText(listing, 1, KEPT_LISTING_VERSION));
      assert.equal(readKeptListing(on(NFS), file, '/w', KEPT_LISTING_FILE_SYSTEMS, KEPT_LISTING_VERSION, parseKeptListing, keptListingAllowed), undefined);
      assert.equal(readKeptListing(on(EXT4), file, '/w', KEPT_LISTING_FILE_SYSTEMS, KEPT_LISTING_VERSION, parseKeptListing, keptListingAllowed)?.root, '/w');
      assert.equal(readKeptListing(on(EXT4), `${file}-none`, '/w', KEPT_LISTING_FILE_SYSTEMS, KEPT_LISTING_VERSION, parseKeptListing, keptListingAllowed), undefined);
    });

    it('is not used when others may write it, or another user owns it', () => {
      const ext4 = { ...fs, statfsSync: () => ({ type: EXT4 }) } as unknown as typeof fs;
      const file = path.join(scratch, 'kept');
      fs.writeFileSync(file, keptListingText(listing, 1, KEPT_LISTING_VERSION), { mode: 0o600 });
      const read = (through = ext4) => readKeptListing(through, file, '/w', KEPT_LISTING_FILE_SYSTEMS, KEPT_LISTING_VERSION, parseKeptListing, keptListingAllowed);
      assert.equal(read()?.root, '/w');
      fs.chmodSync(file, 0o622);
      assert.equal(read(), undefined, 'writable by others');
      fs.chmodSync(file, 0o620);
      assert.equal(read(), undefined, 'writable by the group');
      fs.chmodSync(file, 0o644);
      assert.equal(read()?.root, '/w', 'readable by others is the owner\'s choice');
      const fstatSync = ((fd: number) => Object.assign(fs.fstatSync(fd), { uid: (process.getuid?.() ?? 0) + 1 })) as typeof fs.fstatSync;
      assert.equal(read({ ...ext4, fstatSync } as typeof fs), undefined, 'owned by another user');
      fs.rmSync(file);
      fs.mkdirSync(file);
      assert.equal(read(), undefined, 'a folder');
    });

    it('is written readable by its owner alone, only for a listing of enough files, and a failure costs nothing', async () => {
      someNotes();
      const made = prelist(fs, root, 1_000_000);
      assert.ok(made);
      const files = made.joined.split('\0').length;
      const file = path.join(scratch, 'cache', 'deeper', 'kept');
      const keepIt = (minFiles: number, types = KEPT_LISTING_FILE_SYSTEMS, at = file) => keepListing(fs, at, made, minFiles, types, KEPT_LISTING_VERSION, keptListingText, keptListingAllowed);
      // The test's temporary folder is not on a file system named there: say it is.
      const here = [fs.statfsSync(root).type];
      assert.equal(await keepIt(files + 1, here), false);
      assert.equal(fs.existsSync(file), false);
      assert.equal(await keepIt(files, []), false);
      assert.equal(fs.existsSync(file), false);
      assert.equal(await keepIt(files, here), true);
      assert.equal(fs.statSync(file).mode & 0o777, 0o600);
      assert.deepEqual(fs.readdirSync(path.dirname(file)), ['kept'], 'nothing left aside');
      assert.equal(parseKeptListing(fs.readFileSync(file, 'utf8'), KEPT_LISTING_VERSION)?.joined, made.joined);
      // A file where its folder should be.
      fs.writeFileSync(path.join(scratch, 'blocked'), '');
      assert.equal(await keepIt(files, here, path.join(scratch, 'blocked', 'kept')), false);
    });
  });

  describe('by the loader\u2019s worker', () => {
    /** The listing a worker started as the loader starts it sends. */
    function workerListing(env: NodeJS.ProcessEnv): Promise<Prelisting | undefined> {
      const worker = prestartTextWorker(env, root) as Worker;
      assert.ok(worker);
      return new Promise((resolve) => {
        worker.on('message', (m: { type?: string; listing?: Prelisting }) => {
          if (m.type === 'prelisting') resolve(m.listing);
        });
      });
    }

    async function keptFileOf(env: NodeJS.ProcessEnv): Promise<string> {
      const file = keptListingFile(root, env);
      assert.ok(file);
      for (let i = 0; i < 200 && !fs.existsSync(file); i++) await sleep(20);
      return file;
    }

    function manyNotes() {
      for (let i = 0; i < EARLY_LISTING_MIN_FILES; i++) write(`area ${i % 40}/topic ${i % 7}/note ${i}.md`, '');
    }

    it('keeps its listing of a large workspace, and the next start takes it, changed or not', async () => {
      const type = fs.statfsSync(os.tmpdir()).type;
      assert.ok(KEPT_LISTING_FILE_SYSTEMS.includes(type) && process.platform === 'linux', `the temporary folder is on a file system a listing is kept for (statfs type 0x${type.toString(16)}, ${process.platform})`);
      manyNotes();
      const env = { NOTESAPP_CACHE_DIR: path.join(scratch, 'cache') };
      await sleep(TICK_MS);
      const first = await workerListing(env);
      assert.ok(first);
      assert.equal(first.kept, undefined, 'nothing kept yet');
      const file = await keptFileOf(env);
      assert.ok(fs.existsSync(file), 'the listing was kept');
      assert.equal(fs.statSync(file).mode & 0o777, 0o600);
      discardPrestartedWorker();
      // The kept listing's 280 topic folders were changed less than 3 s before it began (each got a note in the last
      // 280 written): they are read again, and the listing is kept anew. (The root and the 40 area folders last
      // changed when their topics were made: more than 3 s before, on a slow machine.)
      const second = await workerListing(env);
      assert.equal(second?.kept?.whole, false);
      assert.ok(second.kept.reused <= 41, `${second.kept.reused} folders taken from the kept listing`);
      assert.equal(second?.joined, first.joined);
      discardPrestartedWorker();
      await sleep(3100);
      fs.rmSync(file);
      const third = await workerListing(env);
      assert.equal(third?.joined, first.joined);
      await keptFileOf(env);
      discardPrestartedWorker();
      await sleep(TICK_MS);
      const fourth = await workerListing(env);
      assert.deepEqual(fourth?.kept, { reused: fourth?.folders.length, whole: true });
      assert.equal(fourth?.joined, first.joined);
      discardPrestartedWorker();
      write('area 3/topic 3/added.md');
      fs.rmSync(path.join(root, 'area 5'), { recursive: true });
      const fifth = await workerListing(env);
      assert.equal(fifth?.joined, prelist(fs, root, 1_000_000)?.joined);
      assert.ok(fifth?.joined.includes('area 3/topic 3/added.md') && !fifth.joined.includes('area 5/'));
      assert.equal(fifth?.kept?.whole, false);
      discardPrestartedWorker();
      // None with NOTESAPP_LISTING_CACHE=off.
      const off = await workerListing({ ...env, NOTESAPP_LISTING_CACHE: 'off' });
      assert.equal(off?.kept, undefined);
    });

    it('is removed once the workspace holds too few files to be listed early', async () => {
      const env = { NOTESAPP_CACHE_DIR: path.join(scratch, 'cache') };
      const file = keptListingFile(root, env);
      assert.ok(file);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, 'kept');
      await rememberListingSize(root, EARLY_LISTING_MIN_FILES, env);
      assert.ok(fs.existsSync(file));
      await rememberListingSize(root, EARLY_LISTING_MIN_FILES - 1, env);
      assert.equal(fs.existsSync(file), false);
    });

    it('has no file without a cache folder, with NOTESAPP_LISTING_CACHE=off, or off Linux', () => {
      assert.equal(keptListingFile(root, { NOTESAPP_NO_CODE_CACHE: '1' }), undefined);
      assert.equal(keptListingFile(root, { NOTESAPP_CACHE_DIR: scratch, NOTESAPP_LISTING_CACHE: 'off' }), undefined);
      assert.equal(keptListingFile(root, { NOTESAPP_CACHE_DIR: scratch }, 'darwin'), undefined);
      assert.equal(path.dirname(keptListingFile(root, { NOTESAPP_CACHE_DIR: scratch }, 'linux') ?? ''), scratch);
    });
  });
});
