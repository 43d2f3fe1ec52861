// Writes the file system refuses (full disk, read-only file system): the old note stays whole, nothing is left
// behind, and the error names the workspace-relative path and the cause. On a small tmpfs, which only root may mount.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { callError, startServer, type Harness } from './harness';

/** Mounts a tmpfs of `size` at a new folder; where that is not possible, the reason. */
function mountTmpfs(size: string): { dir: string; unmount: () => void } | string {
  if (process.platform !== 'linux') return 'tmpfs mounts need Linux';
  if (process.getuid?.() !== 0) return 'mounting a tmpfs needs root';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-smallfs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (err) {
    fs.rmdirSync(dir);
    return `mount -t tmpfs failed: ${String((err as { stderr?: Buffer }).stderr ?? err).trim()}`;
  }
  return {
    dir,
    unmount: () => {
      execFileSync('umount', [dir]);
      fs.rmdirSync(dir);
    },
  };
}

const tools = (file: string) =>
  [
    ['write_file', { path: file, content: 'x'.repeat(600 * 1024) }],
    ['update_note_metadata', { path: file, metadata: { padding: 'y'.repeat(600 * 1024) } }],
    ['create_file', { path: 'sub/new.md', content: 'x'.repeat(600 * 1024) }],
    ['create_note', { title: 'Big', folder: 'sub', content: 'x'.repeat(600 * 1024) }],
    ['write_file', { path: 'fresh/folder/new.md', content: 'x'.repeat(600 * 1024) }],
  ] as const;

describe('writes the file system refuses', function () {
  let fsMount: { dir: string; unmount: () => void } | undefined;
  let h: Harness | undefined;
  let workspace: string;
  const note = '---\ntitle: kept\n---\nThe old text.\n';

  before(function () {
    const mounted = mountTmpfs('512k');
    if (typeof mounted === 'string') {
      console.log(`      (skipped: ${mounted})`);
      this.skip();
    }
    fsMount = mounted;
  });
  beforeEach(async function () {
    if (!fsMount) this.skip();
    workspace = path.join(fsMount.dir, 'ws');
    fs.mkdirSync(path.join(workspace, 'sub'), { recursive: true });
    fs.writeFileSync(path.join(workspace, 'sub', 'note.md'), note);
    h = await startServer({ workspace });
  });
  afterEach(async () => {
    if (fsMount) execFileSync('mount', ['-o', 'remount,rw', fsMount.dir]);
    await h?.close();
    h = undefined;
  });
  after(() => fsMount?.unmount());

  /** Everything in the workspace: names and contents. */
  const snapshot = () =>
    (fs.readdirSync(workspace, { recursive: true }) as string[])
      .sort()
      .map((rel) => [rel, fs.statSync(path.join(workspace, rel)).isFile() ? fs.readFileSync(path.join(workspace, rel), 'utf8') : '/']);

  it('on a full disk keeps the old note, leaves no temporary file or new folder, and says the disk is full, naming the relative path', async () => {
    const before = snapshot();
    for (const [tool, args] of tools('sub/note.md')) {
      const message = await callError(h!.client, tool, args);
      const shown = tool === 'create_note' ? 'sub/Big.md' : args.path;
      assert.equal(message, `"${shown}" could not be written: the disk is full (ENOSPC). Nothing was changed; free some space and try again.`, tool);
      assert.deepEqual(snapshot(), before, `${tool} changed nothing`);
    }
  });

  it('on a read-only file system says so, naming the relative path, for every tool that writes', async () => {
    execFileSync('mount', ['-o', 'remount,ro', fsMount!.dir]);
    const before = snapshot();
    for (const [tool, args] of [...tools('sub/note.md'), ['delete_file', { path: 'sub/note.md' }] as const]) {
      const message = await callError(h!.client, tool, args);
      const shown = tool === 'create_note' ? 'sub/Big.md' : args.path;
      assert.equal(message, `"${shown}" cannot be changed: the file system is read-only. Nothing was changed.`, tool);
    }
    assert.deepEqual(snapshot(), before);
  });
});
