// When a folder cannot be watched (the operating system's watch limit, say), the index could miss changes there:
// it says so, and search and listing read the disk instead. A folder that may not be read is not such a folder.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { IndexedSearch } from '../../../src/core/workspace/index-search';
import { ScanSearch, type SearchQuery } from '../../../src/core/workspace/search';
import { listWorkspaceFiles } from '../../../src/core/workspace/listing';
import { WorkspaceIndex } from '../../../src/core/workspace/workspace-index';

const OPTIONS = { excludePatterns: [], showHiddenFiles: false };

/**
 * A workspace holding `files` (each containing "kyoto"), its index, whose watch of a folder throws what `refuse`
 * gives for it, and the disk scan to compare with.
 */
function openFixture(prefix: string, files: string[], logged: string[], refuse: (folder: string) => Error | undefined) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  for (const rel of files) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), `${rel} kyoto\n`);
  }
  const index = new WorkspaceIndex({
    root,
    ...OPTIONS,
    fileExtension: '.md',
    maxFileSize: 1e6,
    maxFiles: 1000,
    maxBytes: 1e8,
    log: (_level, message) => logged.push(message),
    watchFolder: (folder, watchOptions, listener) => {
      const refused = refuse(folder);
      if (refused) throw refused;
      return fs.watch(folder, watchOptions, listener);
    },
  });
  const scan = new ScanSearch({ root, files: { ...OPTIONS, searchExcludePatterns: [], fileExtension: '.md' }, maxFileSize: 1e6 });
  return { root, index, scan };
}

describe('workspace index with a folder it cannot watch', function () {
  this.timeout(30_000);
  let root: string;
  let index: WorkspaceIndex;
  let scan: ScanSearch;
  const logged: string[] = [];

  before(() => {
    ({ root, index, scan } = openFixture('notesapp-untrusted-', ['a/one.md', 'b/two.md', 'b/deeper/three.md'], logged, (folder) =>
      path.basename(folder) === 'b' ? Object.assign(new Error('ENOSPC: System limit for number of file watchers reached'), { code: 'ENOSPC' }) : undefined,
    ));
  });

  after(() => {
    index.dispose();
    scan.dispose();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('is not trusted, and searches read the disk: a change in the unwatched folder is found at once', async () => {
    assert.equal(await index.fresh(), false);
    assert.ok(logged.some((m) => /index not used: cannot watch b: ENOSPC/.test(m)), logged.join('\n'));
    let fallbacks = 0;
    const search = new IndexedSearch(index, {
      searchExcludePatterns: [],
      fallback: async () => {
        fallbacks++;
        return scan;
      },
    });
    // Another program adds a note in the folder no watcher sees.
    const r = spawnSync(process.execPath, ['-e', `require('node:fs').writeFileSync(${JSON.stringify(path.join(root, 'b', 'new.md'))}, 'fresh kyoto here\\n')`]);
    assert.equal(r.status, 0);
    const q: SearchQuery = { query: 'kyoto', regex: false, caseSensitive: true, wholeWord: false, maxResults: 100 };
    const found = await search.search(q);
    assert.equal(fallbacks, 1);
    assert.deepEqual(
      found.results.map((i) => i.file),
      ['a/one.md', 'b/deeper/three.md', 'b/new.md', 'b/two.md'],
    );
  });
});

describe('workspace index after the operating system dropped watcher events', function () {
  this.timeout(30_000);
  let root: string;
  let index: WorkspaceIndex;
  const logged: string[] = [];
  let rootListener: ((event: fs.WatchEventType, name: string | null) => void) | undefined;

  before(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-burst-')));
    fs.mkdirSync(path.join(root, 'sub'));
    fs.writeFileSync(path.join(root, 'sub', 'kept.md'), 'kept kyoto\n');
    index = new WorkspaceIndex({
      root,
      excludePatterns: [],
      showHiddenFiles: false,
      fileExtension: '.md',
      maxFileSize: 1e6,
      maxFiles: 1000,
      maxBytes: 1e8,
      burstLimit: 20,
      log: (_level, message) => logged.push(message),
      // Events of names starting with "lost" never arrive, as when the kernel's queue overflowed.
      watchFolder: (folder, watchOptions, listener) => {
        const filtered: fs.WatchListener<string> = (event, name) => {
          if (!name?.startsWith('lost')) listener(event, name);
        };
        if (folder === root) rootListener = filtered;
        return fs.watch(folder, watchOptions, filtered);
      },
    });
  });

  after(() => {
    index.dispose();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('lists the whole workspace again after a burst of events as large as the queue could hold', async () => {
    assert.equal(await index.fresh(), true);
    assert.deepEqual(index.listFiles(), ['sub/kept.md']);
    fs.writeFileSync(path.join(root, 'lost-1.md'), 'x\n');
    fs.writeFileSync(path.join(root, 'sub', 'lost-2.md'), 'x\n');
    fs.rmSync(path.join(root, 'sub', 'kept.md'));
    assert.equal(await index.fresh(), true);
    assert.deepEqual(index.listFiles(), [], 'the events that arrived are applied; the dropped ones are not known');

    // Late events of the writes above (a loaded machine delivers them in a later turn) arrive first.
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Ten events in one turn are an ordinary batch (and leave room for a stray late one): nothing more is listed.
    for (let i = 0; i < 10; i++) rootListener?.('rename', `other-${i}.md`);
    assert.equal(await index.fresh(), true);
    assert.deepEqual(index.listFiles(), []);
    // Twenty are the limit: the index lists everything again and finds what it was never told about.
    for (let i = 0; i < 20; i++) rootListener?.('rename', `other-${i}.md`);
    assert.equal(await index.fresh(), true);
    assert.deepEqual(index.listFiles(), ['lost-1.md', 'sub/lost-2.md']);
    assert.ok(logged.some((m) => /20 changes reported at once: the operating system may have dropped some/.test(m)), logged.join('\n'));
  });
});

describe('workspace index and a folder made unreadable, then readable again', function () {
  this.timeout(30_000);
  let root: string;
  let index: WorkspaceIndex;
  let scan: ScanSearch;
  let search: IndexedSearch;
  let fallbacks = 0;
  const logged: string[] = [];
  /** While set, watching `private` fails as it does for a folder without read permission (root reads it anyway). */
  let locked = false;
  const q: SearchQuery = { query: 'kyoto', regex: false, caseSensitive: true, wholeWord: false, maxResults: 100 };

  before(async () => {
    ({ root, index, scan } = openFixture('notesapp-unreadable-', ['open/one.md', 'private/two.md'], logged, (folder) =>
      locked && path.basename(folder) === 'private' ? Object.assign(new Error(`EACCES: permission denied, watch '${folder}'`), { code: 'EACCES' }) : undefined,
    ));
    search = new IndexedSearch(index, {
      searchExcludePatterns: [],
      fallback: async () => {
        fallbacks++;
        return scan;
      },
    });
    await index.caching();
  });

  after(() => {
    fs.chmodSync(path.join(root, 'private'), 0o755);
    index.dispose();
    scan.dispose();
    fs.rmSync(root, { recursive: true, force: true });
  });

  /** What the index answers matches a scan of the disk, and it answered from memory (no fallback to the disk). */
  async function sameAsDisk(): Promise<void> {
    assert.equal(await index.fresh(), true, logged.join('\n'));
    assert.deepEqual(index.listFiles(), await listWorkspaceFiles(root, OPTIONS));
    const fromIndex = (await search.search(q)).results.map((r) => `${r.file}:${r.content}`);
    assert.deepEqual(fromIndex, (await scan.search(q)).results.map((r) => `${r.file}:${r.content}`));
    assert.equal(fallbacks, 0, 'answered by the index, not by reading the disk');
  }

  it('keeps answering from the index, and watches the folder again once it may be read', async () => {
    await sameAsDisk();
    locked = true;
    fs.chmodSync(path.join(root, 'private'), 0o000);
    await sameAsDisk();
    locked = false;
    fs.chmodSync(path.join(root, 'private'), 0o755);
    await sameAsDisk();
    // Watched again: a note another program adds there is listed and found.
    fs.writeFileSync(path.join(root, 'private', 'three.md'), 'three kyoto\n');
    await sameAsDisk();
    assert.ok(index.listFiles().includes('private/three.md'));
  });
});
