// A search narrowed down by ripgrep takes ripgrep's files only when the listing would list them: the text worker
// judges each path it printed by the same rules (excluded folders, by their own glob or an ancestor's, hidden
// names, searched types), so the answer is the disk scan's whatever the exclude globs.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { listWorkspaceFiles } from '../../../src/core/workspace/listing';
import { RipgrepUse, ScanSearch, type SearchQuery } from '../../../src/core/workspace/search';
import { WorkspaceIndex } from '../../../src/core/workspace/workspace-index';
import { testRipgrep } from './ripgrep-helper';

describe('ripgrep: the files a narrowed search takes', function () {
  this.timeout(60_000);
  let root: string;
  const opened: Array<{ dispose(): void }> = [];

  before(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-rg-listing-')));
    for (const rel of [
      'top.md',
      'keep/a.md',
      'keep/deep/b.txt',
      'notes/deep/c.md', // excluded by "notes/deep"
      'notes/deep/deeper/d.md', // by its ancestor only
      'notes/deepish/e.md', // a name that starts like an excluded one
      'trail/f.md', // excluded by "trail/", a glob with a slash after it
      'trail/sub/g.md',
      '.hidden/i.md', // a hidden folder
      'keep/.dot/j.md', // a hidden folder inside a listed one
      'keep/.k.md', // a hidden file
      'media/l.png', // not a searched type
      'archive/2024/m.md', // excluded by a search exclude glob
      'node_modules/pkg/n.md',
    ]) {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), `needle in ${rel}\n`);
    }
  });

  after(() => {
    for (const o of opened) o.dispose();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const q: SearchQuery = { query: 'needle', regex: false, caseSensitive: true, wholeWord: false, maxResults: 1000 };

  for (const [name, excludePatterns, searchExcludes, showHiddenFiles] of [
    ['the default globs', ['**/node_modules/**', '**/.git/**'], [], false],
    ['folders excluded by name, by a glob with a slash after it, and under an excluded one', ['**/node_modules/**', 'notes/deep', 'trail/'], ['archive/**'], false],
    ['a file glob, and hidden names shown', ['**/node_modules/**', '**/*.txt'], ['**/2024/**'], true],
  ] as Array<[string, string[], string[], boolean]>) {
    it(`with ${name}`, async () => {
      const index = new WorkspaceIndex({ root, excludePatterns, showHiddenFiles, fileExtension: '.md', maxFileSize: 100_000, maxFiles: 1000, maxBytes: 1e8 });
      const scan = new ScanSearch({
        root,
        files: { listFiles: () => listWorkspaceFiles(root, { excludePatterns: [...excludePatterns, ...searchExcludes], showHiddenFiles }), fileExtension: '.md' },
        maxFileSize: 100_000,
      });
      opened.push(index, scan);
      const narrowed = await index.searchUncached(new RipgrepUse(testRipgrep()), index.walkRules(searchExcludes), q);
      assert.ok(narrowed, 'ripgrep narrowed the search down');
      const expected = await scan.search(q);
      assert.deepEqual(narrowed.results.map((r) => r.file), expected.results.map((r) => r.file));
      assert.ok(expected.results.length >= 3);
    });
  }
});
