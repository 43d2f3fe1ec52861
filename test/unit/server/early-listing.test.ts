// The loader's text worker lists the workspace while the server loads; list_files answers from that listing once
// each folder is checked, the same files as a crawl of the disk. NOTESAPP_EARLY_LISTING=off and settings that
// list what it leaves out make the index crawl as before.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { listWorkspaceFiles } from '../../../src/core/workspace/listing';
import { listingHintFile } from '../../../src/core/workspace/listing-hint';
import { callOk, copyFixture, fixture, startServer } from './harness';

const EARLY = /files listed in \d+ ms from the early listing/;

describe('MCP list_files from the early listing', function () {
  this.timeout(60_000);

  type Env = Record<string, string>;
  async function listed(options: { env?: Env | ((workspace: string) => Env); config?: Record<string, unknown>; showHiddenFiles?: boolean; workspaceArgs?: (dir: string) => string[] }) {
    const workspace = copyFixture();
    fs.mkdirSync(path.join(workspace, 'node_modules', 'pkg'), { recursive: true });
    fs.writeFileSync(path.join(workspace, 'node_modules', 'pkg', 'index.md'), 'x');
    fs.writeFileSync(path.join(workspace, '.hidden.md'), 'x');
    const env = typeof options.env === 'function' ? options.env(workspace) : options.env;
    const h = await startServer({ workspace, env, config: options.config, workspaceArgs: options.workspaceArgs });
    try {
      const { files } = await callOk<{ files: string[] }>(h.client, 'list_files');
      const excludePatterns = ['**/node_modules/**', '**/.git/**', '**/.DS_Store'];
      assert.deepEqual(files, await listWorkspaceFiles(fs.realpathSync(workspace), { excludePatterns, showHiddenFiles: options.showHiddenFiles ?? false }));
      return { files, stderr: h.stderr() };
    } finally {
      await h.close();
    }
  }

  it('is what the index starts from under the default settings', async () => {
    const { files, stderr } = await listed({});
    assert.match(stderr, EARLY);
    assert.ok(files.includes('ideas.md'));
    assert.ok(!files.some((f) => f.startsWith('node_modules/') || f.startsWith('.')));
  });

  it('is made for the workspace however main.ts is told it: --workspace=DIR, or NOTESAPP_WORKSPACE', async () => {
    assert.match((await listed({ workspaceArgs: (dir) => [`--workspace=${dir}`] })).stderr, EARLY);
    assert.match((await listed({ workspaceArgs: () => [], env: (dir) => ({ NOTESAPP_WORKSPACE: dir }) })).stderr, EARLY);
  });

  it('is not made for a workspace that held few files when it was last listed', async () => {
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-hint-cache-'));
    const workspace = copyFixture();
    try {
      const env = { NOTESAPP_CACHE_DIR: cache };
      const first = await startServer({ workspace, env });
      await callOk(first.client, 'list_files');
      assert.match(first.stderr(), EARLY);
      // The size is remembered once the listing is complete.
      const hint = listingHintFile(cache, workspace);
      for (let i = 0; i < 100 && !fs.existsSync(hint); i++) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.ok(fs.existsSync(hint), 'the size was remembered');
      await first.close(); // removes the workspace
      fs.cpSync(fixture, workspace, { recursive: true });
      const second = await startServer({ workspace, env });
      await callOk(second.client, 'list_files');
      assert.doesNotMatch(second.stderr(), EARLY);
      await second.close();
    } finally {
      fs.rmSync(cache, { recursive: true, force: true });
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  });

  it('is not made with NOTESAPP_EARLY_LISTING=off', async () => {
    const { stderr } = await listed({ env: { NOTESAPP_EARLY_LISTING: 'off' } });
    assert.doesNotMatch(stderr, EARLY);
    assert.match(stderr, /files listed and \d+ folders watched/);
  });

  it('is not used when the settings show hidden files', async () => {
    const { files, stderr } = await listed({ config: { files: { showHiddenFiles: true } }, showHiddenFiles: true });
    assert.doesNotMatch(stderr, EARLY);
    assert.ok(files.includes('.hidden.md'));
  });
});
