// What `npm run package` puts into the .vsix: the bundles and the manifest's assets, never sources or tests.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '../../..');

describe('extension package contents', () => {
  let files: string[];

  before(function () {
    this.timeout(60_000);
    const vsce = path.join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'vsce.cmd' : 'vsce');
    const r = spawnSync(vsce, ['ls', '--no-dependencies'], { cwd: root, encoding: 'utf8', input: '', timeout: 50_000, shell: process.platform === 'win32' });
    assert.equal(r.status, 0, r.stderr);
    files = r.stdout.split('\n').map((l) => l.trim()).filter(Boolean);
  });

  it('contains dist/extension.js, dist/server.js (with its bundle dist/server-core.js, its snapshot builder and note worker) and the icon', () => {
    for (const f of ['dist/extension.js', 'dist/server.js', 'dist/server-core.js', 'dist/server-snapshot.js', 'dist/note-worker.js', 'media/icon.png', 'package.json', 'README.md']) {
      assert.ok(files.includes(f), `${f} is packaged (got: ${files.join(', ')})`);
    }
  });

  it('contains no TypeScript sources, tests, source maps, demo copies or caches', () => {
    const unwanted = files.filter((f) => /\.ts$|\.map$|^(src|server|test|out|node_modules|\.demo-workspace|\.vscode-test|bench-results|test-results)\//.test(f));
    assert.deepEqual(unwanted, []);
  });
});
