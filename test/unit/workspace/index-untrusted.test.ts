// When a folder cannot be watched (the operating system's watch limit, say), the index could miss changes there:
// it says so, and search and listing read the disk instead.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { IndexedSearch } from '../../../src/core/workspace/index-search';
import { ScanSearch, type SearchQuery } from '../../../src/core/workspace/search';
import { WorkspaceIndex } from '../../../src/core/workspace/workspace-index';

describe('workspace index with a folder it cannot watch', function () {
  this.timeout(30_000);
  let root: string;
  let index: WorkspaceIndex;
  let scan: ScanSearch;
  const logged: string[] = [];

  before(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-untrusted-')));
    for (const rel of ['a/one.md', 'b/two.md', 'b/deeper/three.md']) {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), `${rel} kyoto\n`);
    }
    const options = { excludePatterns: [], showHiddenFiles: false };
    index = new WorkspaceIndex({
      root,
      ...options,
      fileExtension: '.md',
      maxFileSize: 1e6,
      maxFiles: 1000,
      maxBytes: 1e8,
      log: (_level, message) => logged.push(message),
      watchFolder: (folder, watchOptions, listener) => {
        if (path.basename(folder) === 'b') throw Object.assign(new Error('ENOSPC: System limit for number of file watchers reached'), { code: 'ENOSPC' });
        return fs.watch(folder, watchOptions, listener);
      },
    });
    scan = new ScanSearch({ root, files: { ...options, searchExcludePatterns: [], fileExtension: '.md' }, maxFileSize: 1e6 });
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
