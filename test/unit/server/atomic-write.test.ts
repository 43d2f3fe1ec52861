// Writes through real stdio: names up to the file system's 255 bytes, hidden short temporary files, stale ones swept.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { callError, callOk, startServer, type Harness } from './harness';

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
