// The workspace index keeps up with changes its folder watchers cannot name directly: a note changed through
// another hard link of it, and another folder put in the place of the workspace folder.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { IndexedSearch } from '../../../src/core/workspace/index-search';
import { listWorkspaceFiles } from '../../../src/core/workspace/listing';
import { ScanSearch, type SearchQuery } from '../../../src/core/workspace/search';
import { WorkspaceIndex } from '../../../src/core/workspace/workspace-index';

const query = (text: string): SearchQuery => ({ query: text, regex: false, caseSensitive: false, wholeWord: false, maxResults: 100 });

describe('workspace index and notes with several hard links', function () {
  this.timeout(30_000);
  let root: string;
  let index: WorkspaceIndex;
  let search: IndexedSearch;
  let scan: ScanSearch;

  beforeEach(async () => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-hardlinks-')));
    fs.writeFileSync(path.join(root, 'a.md'), 'alpha\n');
    fs.writeFileSync(path.join(root, 'other.md'), 'unrelated alpha\n');
    const options = { excludePatterns: [], showHiddenFiles: false };
    index = new WorkspaceIndex({ root, ...options, fileExtension: '.md', maxFileSize: 1e6, maxFiles: 1000, maxBytes: 1e8, textWorkers: 2 });
    scan = new ScanSearch({ root, files: { ...options, searchExcludePatterns: [], fileExtension: '.md' }, maxFileSize: 1e6 });
    search = new IndexedSearch(index, { searchExcludePatterns: [], fallback: async () => scan });
    await index.caching();
    assert.equal(index.stats().cachedFiles, 2, 'both texts are kept: each file has one name');
  });

  afterEach(() => {
    index.dispose();
    scan.dispose();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const found = async (text: string) => (await search.search(query(text))).results.map((r) => `${r.file}:${r.content}`);

  it('finds what was written through a new name of a kept note under both names, and no longer its old text', async () => {
    assert.deepEqual(await found('alpha'), ['a.md:alpha', 'other.md:unrelated alpha']);
    const statsBefore = await index.noteStats(['a.md', 'other.md']);
    assert.equal(statsBefore[0].size, 'alpha\n'.length);
    fs.linkSync(path.join(root, 'a.md'), path.join(root, 'b.md'));
    // Written in place through the new name: the watchers report b.md only.
    fs.writeFileSync(path.join(root, 'b.md'), 'needle written through b\n');
    assert.deepEqual(await found('needle'), ['a.md:needle written through b', 'b.md:needle written through b']);
    assert.deepEqual(await found('alpha'), ['other.md:unrelated alpha']);
    assert.deepEqual(await found('alpha'), await found('alpha'), 'the same on a second search');
    const statsAfter = await index.noteStats(['a.md', 'b.md', 'other.md']);
    assert.deepEqual(
      statsAfter.map((s) => [s.path, s.size]),
      [
        ['a.md', 'needle written through b\n'.length],
        ['b.md', 'needle written through b\n'.length],
        ['other.md', 'unrelated alpha\n'.length],
      ],
    );
    // While the file has two names its text is not kept: a later change through either name is found.
    await index.caching();
    fs.writeFileSync(path.join(root, 'b.md'), 'third text\n');
    assert.deepEqual(await found('third'), ['a.md:third text', 'b.md:third text']);
    assert.deepEqual(await found('needle'), []);
  });

  it('drops the kept text of a note written through another name in a folder reported changed at the same time', async () => {
    // Changes under a reported folder are read with it: the note's other name must still be known to be stale.
    fs.mkdirSync(path.join(root, 'sub'));
    fs.writeFileSync(path.join(root, 'sub', 'c.md'), 'gamma\n');
    assert.deepEqual(await found('gamma'), ['sub/c.md:gamma']);
    await index.caching();
    assert.equal(index.stats().cachedFiles, 3);
    fs.linkSync(path.join(root, 'a.md'), path.join(root, 'sub', 'b.md'));
    fs.writeFileSync(path.join(root, 'sub', 'b.md'), 'needle written in sub\n');
    // Reported by the workspace folder's watcher in the same batch: the folder itself changed (its permissions).
    fs.chmodSync(path.join(root, 'sub'), 0o700);
    assert.deepEqual(await found('needle'), ['a.md:needle written in sub', 'sub/b.md:needle written in sub']);
    assert.deepEqual(await found('alpha'), ['other.md:unrelated alpha']);
  });
});

describe('workspace index and a workspace folder replaced or removed', function () {
  this.timeout(30_000);
  let parent: string;
  let root: string;
  let index: WorkspaceIndex;
  let search: IndexedSearch;
  const logged: string[] = [];

  beforeEach(async function () {
    // Windows does not let a watched folder be renamed or removed.
    if (process.platform === 'win32') this.skip();
    parent = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-root-')));
    root = path.join(parent, 'notes');
    fs.mkdirSync(path.join(root, 'sub'), { recursive: true });
    fs.writeFileSync(path.join(root, 'old.md'), 'needle old\n');
    fs.writeFileSync(path.join(root, 'sub', 'deep.md'), 'needle deep\n');
    index = new WorkspaceIndex({ root, excludePatterns: [], showHiddenFiles: false, fileExtension: '.md', maxFileSize: 1e6, maxFiles: 1000, maxBytes: 1e8, textWorkers: 1, log: (_level, message) => logged.push(message) });
    search = new IndexedSearch(index, { searchExcludePatterns: [], fallback: async () => assert.fail('the index is trusted') });
    await index.caching();
  });

  afterEach(() => {
    index?.dispose();
    if (parent) fs.rmSync(parent, { recursive: true, force: true });
  });

  const listed = async () => {
    assert.ok(await index.fresh());
    return [...index.listFiles()];
  };
  const found = async (text: string) => (await search.search(query(text))).results.map((r) => `${r.file}:${r.content}`);

  it('lists, searches and watches the new folder when another is put in its place', async () => {
    assert.deepEqual(await found('needle'), ['old.md:needle old', 'sub/deep.md:needle deep']);
    fs.renameSync(root, path.join(parent, 'notes-old'));
    fs.mkdirSync(root);
    fs.writeFileSync(path.join(root, 'new.md'), 'needle new\n');
    assert.deepEqual(await listed(), ['new.md']);
    assert.deepEqual(await found('needle'), ['new.md:needle new']);
    assert.ok(logged.some((m) => /workspace folder was replaced/.test(m)), logged.join('\n'));
    // The new folder is watched: files added to it, and changes to the old one (elsewhere now), are seen rightly.
    fs.writeFileSync(path.join(root, 'new2.md'), 'needle new2\n');
    fs.writeFileSync(path.join(parent, 'notes-old', 'old.md'), 'needle changed elsewhere\n');
    assert.deepEqual(await listed(), ['new.md', 'new2.md']);
    assert.deepEqual(await found('needle'), ['new.md:needle new', 'new2.md:needle new2']);
  });

  it('lists nothing while the folder is gone, and the folder made again once it is back', async () => {
    fs.rmSync(root, { recursive: true });
    assert.deepEqual(await listed(), []);
    assert.deepEqual(await found('needle'), []);
    fs.mkdirSync(root);
    fs.writeFileSync(path.join(root, 'again.md'), 'needle again\n');
    assert.deepEqual(await listed(), ['again.md']);
    assert.deepEqual(await found('needle'), ['again.md:needle again']);
    fs.writeFileSync(path.join(root, 'more.md'), 'needle more\n');
    assert.deepEqual(await found('needle'), ['again.md:needle again', 'more.md:needle more']);
  });

  it('lists and watches the folder removed and made again at once, under the same name', async () => {
    assert.deepEqual(await found('needle'), ['old.md:needle old', 'sub/deep.md:needle deep']);
    // Between two requests: ext4 gives the new folder the inode number the old one had, when nothing holds it.
    fs.rmSync(root, { recursive: true });
    fs.mkdirSync(path.join(root, 'sub'), { recursive: true });
    fs.writeFileSync(path.join(root, 'new.md'), 'needle new\n');
    fs.writeFileSync(path.join(root, 'sub', 'other.md'), 'needle other\n');
    assert.deepEqual(await listed(), ['new.md', 'sub/other.md']);
    assert.deepEqual(await found('needle'), ['new.md:needle new', 'sub/other.md:needle other']);
    fs.writeFileSync(path.join(root, 'later.md'), 'needle later\n');
    assert.deepEqual(await listed(), ['later.md', 'new.md', 'sub/other.md']);
    assert.deepEqual(await found('needle'), ['later.md:needle later', 'new.md:needle new', 'sub/other.md:needle other']);
  });

  it('tells its listeners when the folder is replaced, without a request', async () => {
    let heard = 0;
    index.onFilesChanged(() => heard++);
    fs.renameSync(root, path.join(parent, 'notes-old'));
    fs.mkdirSync(root);
    fs.writeFileSync(path.join(root, 'new.md'), 'needle new\n');
    const deadline = Date.now() + 5000;
    while (heard === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.ok(heard > 0, 'listeners heard of the change');
    assert.deepEqual([...index.listFiles()], ['new.md']);
  });
});

describe('workspace index and folders that come and go', function () {
  this.timeout(30_000);
  let root: string;
  let index: WorkspaceIndex;

  const write = (rel: string) => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), `# ${rel}\n`);
  };
  const crawl = () => listWorkspaceFiles(root, { excludePatterns: [], showHiddenFiles: false });
  const folderCount = () => 1 + fs.readdirSync(root, { recursive: true, withFileTypes: true }).filter((e) => e.isDirectory()).length;

  beforeEach(async () => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-folders-')));
    // Names that sort right before and after the files under "b/": a space and "-" come before "/", "0" after.
    for (const rel of ['a/x.md', 'b c/w.md', 'b-x.md', 'b.md', 'b/c/y.md', 'b/d/z.md', 'b/e.md', 'b0.md', 'c.md']) write(rel);
    index = new WorkspaceIndex({ root, excludePatterns: [], showHiddenFiles: false, fileExtension: '.md', maxFileSize: 1e6, maxFiles: 1000, maxBytes: 1e8, textWorkers: 1 });
    assert.equal(await index.fresh(), true);
    assert.deepEqual(index.listFiles(), await crawl());
  });

  afterEach(() => {
    index.dispose();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('forgets a removed folder with its files and watchers, and lists and watches one made in its place', async () => {
    assert.equal(index.stats().watchedFolders, folderCount());
    fs.rmSync(path.join(root, 'b'), { recursive: true });
    assert.equal(await index.fresh(), true);
    assert.deepEqual(index.listFiles(), ['a/x.md', 'b c/w.md', 'b-x.md', 'b.md', 'b0.md', 'c.md']);
    assert.equal(index.stats().watchedFolders, folderCount(), 'the watchers of the removed folders are closed');

    for (const rel of ['b/c/y.md', 'b/c/y2.md', 'b/f/g/h.md', 'b/e.md']) write(rel);
    assert.equal(await index.fresh(), true);
    assert.deepEqual(index.listFiles(), await crawl());
    assert.ok(index.listFiles().includes('b/f/g/h.md'));
    assert.equal(index.stats().watchedFolders, folderCount());
    // The new folders are watched: a note added deep inside is listed.
    write('b/f/g/later.md');
    assert.equal(await index.fresh(), true);
    assert.deepEqual(index.listFiles(), await crawl());
    assert.ok(index.listFiles().includes('b/f/g/later.md'));
  });
});
