// The loader's text worker lists the workspace while the server loads; list_files answers from that listing once
// each folder is checked, the same files as a crawl of the disk. NOTESAPP_EARLY_LISTING=off and settings that
// list what it leaves out make the index crawl as before.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { listWorkspaceFiles } from '../../../src/core/workspace/listing';
import { EARLY_LISTING_MIN_FILES, keptListingFile, listingHintFile } from '../../../src/core/workspace/listing-hint';
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

  it('is made from the listing kept at the last start, and answers what a crawl lists after changes in between', async () => {
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-kept-cache-'));
    const workspace = copyFixture();
    // Enough that it is still listed early (and its listing kept) once a folder of them is removed.
    for (let i = 0; i < EARLY_LISTING_MIN_FILES + 300; i++) {
      const dir = path.join(workspace, `area ${i % 30}`, `topic ${i % 7}`);
      if (i < 210) fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, `note ${i}.md`), '');
    }
    const env = { NOTESAPP_CACHE_DIR: cache };
    const kept = keptListingFile(workspace, env);
    assert.ok(kept);
    /** One server's answer to list_files and what it logged, once it has kept its listing (or kept none). */
    const start = async (keeps: boolean) => {
      const before = fs.existsSync(kept) ? fs.statSync(kept).mtimeMs : undefined;
      const h = await startServer({ workspace, env });
      try {
        const { files } = await callOk<{ files: string[] }>(h.client, 'list_files');
        const excludePatterns = ['**/node_modules/**', '**/.git/**', '**/.DS_Store'];
        assert.deepEqual(files, await listWorkspaceFiles(fs.realpathSync(workspace), { excludePatterns, showHiddenFiles: false }));
        const rewritten = () => fs.existsSync(kept) && fs.statSync(kept).mtimeMs !== before;
        for (let i = 0; keeps && i < 200 && !rewritten(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
        assert.equal(rewritten(), keeps, `${keeps ? 'the listing was kept' : 'the kept listing was left as it was'}: ${fs.readdirSync(cache).join(', ')} ${h.stderr()}`);
        return { files, line: /files listed in \d+ ms from the early listing \(([^)]*)\)/.exec(h.stderr())?.[1] ?? h.stderr() };
      } finally {
        await h.client.close();
        fs.rmSync(h.configDir, { recursive: true, force: true });
      }
    };
    try {
      // Nothing kept yet; then a listing kept by a start made less than 3 s after the notes were written, which
      // tells nothing: the next start reads every folder, and keeps its listing anew.
      assert.doesNotMatch((await start(true)).line, /kept at the last start/);
      await new Promise((resolve) => setTimeout(resolve, 3100));
      // (The 210 topic folders each got a note among the last 210 written; the root and the areas may be older.)
      const second = (await start(true)).line;
      assert.ok(Number(/; (\d+) of its folders' entries from the listing kept at the last start/.exec(second)?.[1]) < 40, second);
      // Nothing changed since: the kept listing whole, and nothing kept again.
      assert.match((await start(false)).line, /; all of its folders' entries from the listing kept at the last start/);
      fs.writeFileSync(path.join(workspace, 'added at the root.md'), '');
      fs.writeFileSync(path.join(workspace, 'area 3', 'topic 3', 'added.md'), '');
      fs.rmSync(path.join(workspace, 'area 4'), { recursive: true });
      fs.mkdirSync(path.join(workspace, 'new area', 'new topic'), { recursive: true });
      fs.writeFileSync(path.join(workspace, 'new area', 'new topic', 'new.md'), '');
      const changed = await start(true);
      assert.ok(changed.files.includes('added at the root.md') && changed.files.includes('area 3/topic 3/added.md') && changed.files.includes('new area/new topic/new.md'));
      assert.ok(!changed.files.some((f) => f.startsWith('area 4/')));
      const reused = Number(/; (\d+) of its folders' entries from the listing kept/.exec(changed.line)?.[1]);
      assert.ok(reused > 200, `most folders taken from the kept listing: ${changed.line}`);
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
