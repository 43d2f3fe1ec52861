// Writes through real stdio: names up to the file system's 255 bytes, hidden short temporary files, stale ones swept,
// and the permissions and owner of the file replaced.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { callError, callOk, serverJs, startServer, type Harness } from './harness';

describe('atomic writes', () => {
  let h: Harness;
  before(async () => {
    h = await startServer({ config: { security: { validateFileTypes: false } } });
  });
  after(async () => h?.close());

  it('writes, rewrites and creates files whose names take the full 255 bytes', async () => {
    for (const name of ['a'.repeat(252) + '.md', 'é'.repeat(126) + '.md', 'b'.repeat(236) + '.md']) {
      assert.equal(Buffer.byteLength(name) >= 236 && Buffer.byteLength(name) <= 255, true);
      await callOk(h.client, 'write_file', { path: `long/${name}`, content: 'first' });
      await callOk(h.client, 'write_file', { path: `long/${name}`, content: 'second' });
      assert.equal(fs.readFileSync(path.join(h.workspace, 'long', name), 'utf8'), 'second');
    }
    const created = 'c'.repeat(252) + '.md';
    await callOk(h.client, 'create_file', { path: `long/${created}`, content: 'new' });
    assert.equal(fs.readFileSync(path.join(h.workspace, 'long', created), 'utf8'), 'new');
    assert.deepEqual(fs.readdirSync(path.join(h.workspace, 'long')).filter((n) => n.startsWith('.')), [], 'no temporary file left');
  });

  it('answers a name over 255 bytes with a clear error naming the relative path, not the absolute one', async () => {
    const name = 'd'.repeat(253) + '.md';
    for (const tool of ['write_file', 'create_file']) {
      const message = await callError(h.client, tool, { path: `long/${name}`, content: 'x' });
      assert.match(message, /too long/);
      assert.ok(!message.includes(h.workspace), `no absolute path in: ${message}`);
    }
  });

  it('answers a name or path too long as the README documents it, for every tool and a relative or absolute path', async () => {
    const long = `long/${'d'.repeat(300)}.md`;
    const deep = Array.from({ length: 20 }, () => 'e'.repeat(250)).join('/') + '/x.md';
    const documented = (relative: string) =>
      `"${relative}" is too long for the file system: each file or folder name may have at most 255 bytes, and the whole path no more than the system allows.`;
    for (const relative of [long, deep]) {
      for (const given of [relative, path.join(h.workspace, relative)]) {
        for (const [tool, args] of [
          ['read_file', {}],
          ['write_file', { content: 'x' }],
          ['create_file', {}],
          ['delete_file', {}],
          ['get_note_metadata', {}],
          ['update_note_metadata', { metadata: { a: 1 } }],
          ['extract_tasks', {}],
        ] as const) {
          assert.equal(await callError(h.client, tool, { path: given, ...args }), documented(relative), `${tool} ${given.slice(0, 40)}`);
        }
      }
    }
  });

  it('a rewrite leaves no visible temporary file next to the note', async () => {
    await callOk(h.client, 'write_file', { path: 'ideas.md', content: 'one' });
    const before = fs.readdirSync(h.workspace).sort();
    await callOk(h.client, 'write_file', { path: 'ideas.md', content: 'two' });
    assert.deepEqual(fs.readdirSync(h.workspace).sort(), before);
  });

  it('removes its own temporary files left by a killed write (over a minute old) when it next writes into that folder', async () => {
    const dir = path.join(h.workspace, 'swept');
    fs.mkdirSync(dir);
    const stale = path.join(dir, '.notesapp-0123456789ab.tmp');
    const fresh = path.join(dir, '.notesapp-ba9876543210.tmp');
    const foreign = path.join(dir, '.other-0123456789ab.tmp');
    for (const f of [stale, fresh, foreign]) fs.writeFileSync(f, 'partial');
    const old = new Date(Date.now() - 5 * 60_000);
    fs.utimesSync(stale, old, old);
    fs.utimesSync(foreign, old, old);
    await callOk(h.client, 'write_file', { path: 'swept/note.md', content: 'x' });
    assert.equal(fs.existsSync(stale), false, 'the stale temporary file is removed');
    assert.equal(fs.existsSync(fresh), true, 'a recent one may belong to a write under way and stays');
    assert.equal(fs.existsSync(foreign), true, 'files that are not ours stay');
  });
});

describe('temporary files and files.showHiddenFiles', () => {
  for (const watchForChanges of [true, false]) {
    it(`leaves temporary files of killed writes out of list_files while other hidden files are listed (watchForChanges: ${watchForChanges})`, async () => {
      const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-hidden-'));
      fs.mkdirSync(path.join(workspace, 'sub'));
      for (const rel of ['a.md', '.visible.md', '.notesapp-0123456789ab.tmp', 'sub/.notesapp-ba9876543210.tmp', 'sub/.notesapp-x.tmp']) fs.writeFileSync(path.join(workspace, rel), 'partial');
      const h = await startServer({ workspace, config: { files: { showHiddenFiles: true, watchForChanges } } });
      try {
        const expected = ['.visible.md', 'a.md', 'sub/.notesapp-x.tmp'];
        assert.deepEqual((await callOk<{ files: string[] }>(h.client, 'list_files')).files, expected);
        // One left behind while the server runs.
        fs.writeFileSync(path.join(workspace, 'sub', '.notesapp-00000000000f.tmp'), 'partial');
        await callOk(h.client, 'write_file', { path: 'sub/b.md', content: 'x' });
        assert.deepEqual((await callOk<{ files: string[] }>(h.client, 'list_files')).files, [...expected, 'sub/b.md']);
      } finally {
        await h.close();
      }
    });
  }
});

describe('writes and file permissions', () => {
  const root = process.getuid?.() === 0;
  const NOBODY = 65534;

  /**
   * A server run by a user that owns the workspace folder: as root, the server runs as nobody (setpriv), since
   * root may write any file; otherwise as this user.
   */
  async function serverOwningFolder(): Promise<{ client: Client; workspace: string; done: () => Promise<void> }> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-perm-'));
    const workspace = path.join(dir, 'ws');
    fs.mkdirSync(workspace);
    fs.writeFileSync(path.join(dir, 'config.json'), '{}');
    if (root) for (const p of [dir, workspace, path.join(dir, 'config.json')]) fs.chownSync(p, NOBODY, NOBODY);
    const args = [serverJs, '--workspace', workspace, '--config', path.join(dir, 'config.json')];
    const transport = new StdioClientTransport({
      command: root ? 'setpriv' : process.execPath,
      args: root ? [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', process.execPath, ...args] : args,
      env: { ...(process.env as Record<string, string>), HOME: dir, NOTESAPP_BRIDGE_ADDRESS: '', NOTESAPP_BRIDGE_TOKEN: '' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'notesapp-test', version: '1.0.0' });
    await client.connect(transport);
    return { client, workspace, done: async () => (await client.close(), fs.rmSync(dir, { recursive: true, force: true })) };
  }

  it('refuses to replace or delete a note the server may not write, though its folder is writable, and changes nothing', async () => {
    const s = await serverOwningFolder();
    try {
      const readOnly = path.join(s.workspace, 'ro.md');
      fs.writeFileSync(readOnly, 'keep me');
      fs.chmodSync(readOnly, 0o444);
      if (root) fs.chownSync(readOnly, NOBODY, NOBODY);
      const files = [readOnly];
      if (root) {
        // Another user's note, which only its owner may write.
        const others = path.join(s.workspace, 'others.md');
        fs.writeFileSync(others, 'keep me');
        fs.chmodSync(others, 0o644);
        files.push(others);
      }
      for (const file of files) {
        const name = path.basename(file);
        const before = fs.statSync(file);
        for (const [tool, args] of [
          ['write_file', { path: name, content: 'replaced' }],
          ['update_note_metadata', { path: name, metadata: { a: 1 } }],
          ['delete_file', { path: name }],
        ] as const) {
          assert.match(await callError(s.client, tool, args), new RegExp(`"${name}" is read-only: permission denied by the file system\\. Nothing was changed\\.`));
        }
        const after = fs.statSync(file);
        assert.equal(fs.readFileSync(file, 'utf8'), 'keep me');
        assert.deepEqual([after.ino, after.uid, after.mode], [before.ino, before.uid, before.mode], `${name} is the same file`);
      }
      // A link to the read-only note is the server's to remove: the link goes, the note stays.
      fs.symlinkSync('ro.md', path.join(s.workspace, 'alias.md'));
      if (root) fs.lchownSync(path.join(s.workspace, 'alias.md'), NOBODY, NOBODY);
      await callOk(s.client, 'delete_file', { path: 'alias.md' });
      assert.deepEqual(fs.readdirSync(s.workspace).sort(), files.map((f) => path.basename(f)).sort());
    } finally {
      await s.done();
    }
  });

  it('a server run as root keeps the owner of a note it rewrites', async function () {
    // Only root may give a file to another user; other servers cannot replace another user's note at all (above).
    if (!root) this.skip();
    const h = await startServer();
    try {
      const file = path.join(h.workspace, 'users.md');
      fs.writeFileSync(file, 'a user note');
      fs.chownSync(file, NOBODY, NOBODY);
      fs.chmodSync(file, 0o640);
      await callOk(h.client, 'write_file', { path: 'users.md', content: 'rewritten' });
      const st = fs.statSync(file);
      assert.deepEqual([st.uid, st.gid, st.mode & 0o777], [NOBODY, NOBODY, 0o640]);
      assert.equal(fs.readFileSync(file, 'utf8'), 'rewritten');
    } finally {
      await h.close();
    }
  });
});
