// Workspace confinement through the file and note tools over real stdio: every escape attempt fails, nothing outside changes.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serverJs } from './raw-server';

/** Every entry below `dir` with content, mode and mtime (symlinks by target). */
function snapshot(dir: string, skip: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      if (skip.includes(full)) continue;
      const st = fs.lstatSync(full);
      if (entry.isSymbolicLink()) out[full] = `link:${fs.readlinkSync(full)}`;
      else if (entry.isDirectory()) {
        out[full] = `dir:${st.mode}`;
        walk(full);
      } else out[full] = `${st.mode}:${st.mtimeMs}:${fs.readFileSync(full, 'utf8')}`;
    }
  };
  walk(dir);
  return out;
}

describe('workspace confinement through the file and note tools over real stdio', function () {
  this.timeout(30_000);
  let tmp: string;
  let root: string;
  let evil: string;
  let client: Client;

  before(async () => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'notes-confine-')));
    root = path.join(tmp, 'allowed');
    evil = path.join(tmp, 'allowed_evil');
    fs.mkdirSync(path.join(root, 'sub'), { recursive: true });
    fs.mkdirSync(evil);
    fs.writeFileSync(path.join(evil, 'secret.md'), 'top secret');
    fs.writeFileSync(path.join(tmp, 'beside.md'), 'beside');
    fs.writeFileSync(path.join(root, 'note.md'), 'inside');
    fs.symlinkSync(evil, path.join(root, 'out'));
    fs.symlinkSync(path.join(evil, 'secret.md'), path.join(root, 'link.md'));
    fs.symlinkSync(path.join(evil, 'planted.md'), path.join(root, 'dangling.md'));
    fs.symlinkSync('../../allowed_evil', path.join(root, 'sub', 'up'));
    const home = path.join(tmp, 'home');
    fs.mkdirSync(home);
    client = new Client({ name: 'confinement-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        // More calls than the 100-a-minute limit: this test is about paths, so the limit is raised.
        args: [serverJs, '--workspace', root, '--config', path.join(home, 'config.json'), '--rate-limit', '10000'],
        env: { ...process.env, HOME: home } as Record<string, string>,
        stderr: 'ignore',
      }),
    );
  });

  after(async () => {
    await client?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  const attempts = (): Array<[string, RegExp]> => [
    ['../allowed_evil/secret.md', /outside the workspace/],
    ['sub/../../allowed_evil/secret.md', /outside the workspace/],
    ['..\\allowed_evil\\secret.md', /outside the workspace/],
    ['../beside.md', /outside the workspace/],
    [path.join(evil, 'secret.md'), /outside the workspace/],
    [`${root}_evil/secret.md`, /outside the workspace/],
    [`${root}_evil/new.md`, /outside the workspace/],
    ['/etc/hostname', /outside the workspace/],
    ['note.md\0../../allowed_evil/secret.md', /NUL byte/],
    // Written, it would be a file named with U+FFFD instead, which the answer would not name.
    ['lone\ud800.md', /^Access denied: the path is not valid Unicode \(it holds a lone surrogate/],
    ['sub/\ude00/new.md', /^Access denied: the path is not valid Unicode \(it holds a lone surrogate/],
    ['out/secret.md', /symbolic link/],
    ['out/new.md', /symbolic link/],
    ['link.md', /symbolic link/],
    ['dangling.md', /symbolic link/],
    ['sub/up/secret.md', /symbolic link/],
    ['sub/up/fresh.md', /symbolic link/],
  ];

  const calls: Array<[string, (p: string) => Record<string, unknown>]> = [
    ['read_file', (p) => ({ path: p })],
    ['write_file', (p) => ({ path: p, content: 'overwritten by the model' })],
    ['create_file', (p) => ({ path: p, content: 'created by the model' })],
    ['delete_file', (p) => ({ path: p })],
    ['get_note_metadata', (p) => ({ path: p })],
    ['update_note_metadata', (p) => ({ path: p, metadata: { tags: ['leaked'] } })],
    ['summarize_note', (p) => ({ path: p })],
    ['extract_tasks', (p) => ({ path: p })],
    ['create_note', (p) => ({ title: 'Planted', content: 'planted', folder: p })],
  ];

  it('refuses every traversal, prefix-collision, NUL-byte and symlink attempt with a clear error and touches nothing outside', async () => {
    const before = snapshot(tmp, [root, path.join(tmp, 'home')]);
    const linksBefore = ['out', 'link.md', 'dangling.md', 'sub/up'].map((l) => fs.readlinkSync(path.join(root, l)));
    let count = 0;
    for (const [tool, args] of calls) {
      for (const [p, why] of attempts()) {
        const result = await client.callTool({ name: tool, arguments: args(p) });
        const text = (result.content as Array<{ text: string }>)[0]?.text ?? '';
        assert.equal(result.isError, true, `${tool} ${JSON.stringify(p)} must fail, got ${text}`);
        assert.match(text, /Access denied/, `${tool} ${JSON.stringify(p)}: ${text}`);
        assert.match(text, why, `${tool} ${JSON.stringify(p)}: ${text}`);
        assert.doesNotMatch(text, /top secret/);
        count++;
      }
    }
    assert.equal(count, calls.length * attempts().length);
    assert.deepEqual(snapshot(tmp, [root, path.join(tmp, 'home')]), before, 'nothing outside the workspace was read into a result, created or changed');
    assert.deepEqual(['out', 'link.md', 'dangling.md', 'sub/up'].map((l) => fs.readlinkSync(path.join(root, l))), linksBefore);
    assert.equal(fs.existsSync(path.join(evil, 'planted.md')), false);
  });

  it('keeps a note whose title looks like a path inside the workspace', async () => {
    const before = snapshot(tmp, [root, path.join(tmp, 'home')]);
    for (const title of ['../../allowed_evil/secret', '..\\..\\beside', '/etc/passwd', 'a\0b']) {
      const result = await client.callTool({ name: 'create_note', arguments: { title, content: 'x' } });
      const created = (result.structuredContent as { path?: string } | undefined)?.path;
      if (created !== undefined) assert.ok(fs.existsSync(path.join(root, created)) && !created.split('/').includes('..'), created);
    }
    assert.deepEqual(snapshot(tmp, [root, path.join(tmp, 'home')]), before);
  });

  it('still serves the same tools inside the workspace (the refusals are not blanket failures)', async () => {
    const write = await client.callTool({ name: 'write_file', arguments: { path: 'sub/ok.md', content: 'fine' } });
    assert.notEqual(write.isError, true);
    const read = await client.callTool({ name: 'read_file', arguments: { path: path.join(root, 'sub', 'ok.md') } });
    assert.equal((read.content as Array<{ text: string }>)[0].text, 'fine');
    const evilNamed = await client.callTool({ name: 'create_file', arguments: { path: 'allowed_evil.md', content: 'x' } });
    assert.notEqual(evilNamed.isError, true, 'a name that merely looks like a collision is fine inside');
    const del = await client.callTool({ name: 'delete_file', arguments: { path: 'allowed_evil.md' } });
    assert.notEqual(del.isError, true);
  });
});
