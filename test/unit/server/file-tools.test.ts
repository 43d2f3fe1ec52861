// File tools through a real MCP client: read_file, write_file, list_files, create_file, delete_file.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { answerOf, call, callError, callOk, startServer, textOf, type Harness } from './harness';

describe('MCP file tools', () => {
  let h: Harness;
  before(async () => {
    h = await startServer({ config: { security: { maxFileSize: 3 * 1024 * 1024 } } });
  });
  after(async () => h?.close());

  it('read_file returns the text of a note by relative path, and the text block is the file itself', async () => {
    const result = await call(h.client, 'read_file', { path: 'ideas.md' });
    const expected = fs.readFileSync(path.join(h.workspace, 'ideas.md'), 'utf8');
    assert.equal(textOf(result), expected);
    assert.deepEqual(result.structuredContent, {
      path: 'ideas.md', content: expected, size: Buffer.byteLength(expected), offset: 0, length: Buffer.byteLength(expected), truncated: false, nextOffset: null, invalidUtf8: false,
    });
    assert.equal(result.content.length, 1, 'no warning for a UTF-8 file');
  });

  it('read_file says so, in the structured result and in a second text block, when a file is not valid UTF-8', async () => {
    // "Café\n" written in Latin-1, as older editors on Windows save it.
    fs.writeFileSync(path.join(h.workspace, 'latin1.md'), Buffer.from([0x43, 0x61, 0x66, 0xe9, 0x0a]));
    try {
      const result = await call(h.client, 'read_file', { path: 'latin1.md' });
      assert.equal(result.isError, undefined);
      assert.equal(textOf(result), 'Caf\uFFFD\n', 'the first block is still the text read');
      assert.deepEqual(result.structuredContent, { path: 'latin1.md', content: 'Caf\uFFFD\n', size: 5, offset: 0, length: 5, truncated: false, nextOffset: null, invalidUtf8: true });
      assert.equal(result.content.length, 2);
      const warning = result.content[1];
      assert.ok(warning.type === 'text' && /^Warning: "latin1.md" is not valid UTF-8 .*writing this text back with write_file would replace those bytes/.test(warning.text), JSON.stringify(warning));
    } finally {
      fs.rmSync(path.join(h.workspace, 'latin1.md'));
    }
  });

  it('read_file accepts an absolute path inside the workspace and answers with the relative path', async () => {
    const r = await callOk<{ path: string }>(h.client, 'read_file', { path: path.join(h.workspace, 'projects', 'Project Plan.md') });
    assert.equal(r.path, 'projects/Project Plan.md');
  });

  it('read_file refuses paths outside the workspace: traversal, absolute, symlink', async () => {
    assert.match(await callError(h.client, 'read_file', { path: '../etc/passwd' }), /outside the workspace/);
    assert.match(await callError(h.client, 'read_file', { path: '/etc/hostname' }), /outside the workspace/);
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-outside-'));
    fs.writeFileSync(path.join(outside, 'secret.md'), 'secret');
    fs.symlinkSync(outside, path.join(h.workspace, 'escape'));
    try {
      assert.match(await callError(h.client, 'read_file', { path: 'escape/secret.md' }), /outside the workspace/);
      assert.match(await callError(h.client, 'write_file', { path: 'escape/new.md', content: 'x' }), /outside the workspace/);
      assert.equal(fs.existsSync(path.join(outside, 'new.md')), false);
    } finally {
      fs.rmSync(path.join(h.workspace, 'escape'));
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it('read_file reports a missing file and a folder clearly, and every file tool a named pipe as what it is', async () => {
    assert.match(await callError(h.client, 'read_file', { path: 'nope.md' }), /File not found: "nope.md"/);
    assert.match(await callError(h.client, 'read_file', { path: 'projects' }), /is a folder/);
    if (process.platform !== 'win32') {
      // A named pipe (Windows has none among files) is no folder, and is not waited on.
      execFileSync('mkfifo', [path.join(h.workspace, 'pipe.md')]);
      try {
        for (const tool of ['read_file', 'get_note_metadata', 'extract_tasks']) {
          assert.match(await callError(h.client, tool, { path: 'pipe.md' }), /"pipe.md" is not a regular file \(a named pipe, socket or device\)/, tool);
        }
        // Nor is it one to write: the write is refused as what it is, and the pipe stays.
        for (const tool of ['write_file', 'create_file', 'update_note_metadata']) {
          const args = tool === 'update_note_metadata' ? { path: 'pipe.md', metadata: { a: 1 } } : { path: 'pipe.md', content: 'x' };
          assert.match(await callError(h.client, tool, args), /^"pipe.md" is not a regular file \(a named pipe, socket or device\); only files can be (read|written)\.$/, tool);
        }
        // Nor one to delete: it stays.
        assert.equal(await callError(h.client, 'delete_file', { path: 'pipe.md' }), '"pipe.md" is not a regular file (a named pipe, socket or device); only files can be deleted.');
        assert.ok(fs.lstatSync(path.join(h.workspace, 'pipe.md')).isFIFO());
      } finally {
        fs.rmSync(path.join(h.workspace, 'pipe.md'));
      }
    }
  });

  it('delete_file refuses a socket as what it is, and removes a symbolic link itself, not what it leads to', async function () {
    if (process.platform === 'win32') this.skip(); // no UNIX sockets among files on Windows
    const socketPath = path.join(h.workspace, 'sock.md');
    const listener = net.createServer();
    await new Promise<void>((resolve) => listener.listen(socketPath, resolve));
    try {
      assert.equal(await callError(h.client, 'delete_file', { path: 'sock.md' }), '"sock.md" is not a regular file (a named pipe, socket or device); only files can be deleted.');
      assert.ok(fs.lstatSync(socketPath).isSocket());
    } finally {
      await new Promise<void>((resolve) => listener.close(() => resolve()));
      fs.rmSync(socketPath, { force: true });
    }
    // A link is the entry itself: it goes, and what it leads to stays.
    fs.symlinkSync('ideas.md', path.join(h.workspace, 'link-to-ideas.md'));
    const result = await callOk<{ deleted: string }>(h.client, 'delete_file', { path: 'link-to-ideas.md' });
    assert.equal(result.deleted, 'link-to-ideas.md');
    assert.ok(!fs.existsSync(path.join(h.workspace, 'link-to-ideas.md')));
    assert.ok(fs.existsSync(path.join(h.workspace, 'ideas.md')), 'the file the link led to stays');
  });

  it('refuses a file path ending in a separator, for every file tool, and changes nothing', async () => {
    const before = fs.readFileSync(path.join(h.workspace, 'ideas.md'), 'utf8');
    const calls: Array<[string, Record<string, unknown>]> = [
      ['read_file', { path: 'ideas.md/' }],
      ['write_file', { path: 'ideas.md/', content: 'gone' }],
      ['write_file', { path: 'newdir/', content: 'x' }],
      ['create_file', { path: 'fresh.md\\', content: 'x' }],
      ['delete_file', { path: 'ideas.md/' }],
      ['get_note_metadata', { path: 'ideas.md/' }],
      ['update_note_metadata', { path: 'ideas.md/', metadata: { a: 1 } }],
      ['extract_tasks', { path: path.join(h.workspace, 'ideas.md') + '/' }],
    ];
    for (const [tool, args] of calls) {
      const target = String(args.path).replace(/[\\/]$/, '').replace(h.workspace + '/', '');
      assert.equal(await callError(h.client, tool, args), `"${target}/" ends with "/", so it names a folder, not a file.`, `${tool} ${JSON.stringify(args)}`);
    }
    assert.equal(fs.readFileSync(path.join(h.workspace, 'ideas.md'), 'utf8'), before);
    assert.equal(fs.existsSync(path.join(h.workspace, 'newdir')), false);
    assert.equal(fs.existsSync(path.join(h.workspace, 'fresh.md')), false);
  });

  it('read_file returns files over 1 MB in ranges that join up to the whole file', async () => {
    const line = 'Große Notiz — ünïcödé line with emoji 🙂 and text.\n';
    const big = line.repeat(Math.ceil((1.5 * 1024 * 1024) / Buffer.byteLength(line)));
    fs.writeFileSync(path.join(h.workspace, 'big.md'), big);
    const first = await callOk<{ content: string; truncated: boolean; nextOffset: number; size: number; length: number }>(h.client, 'read_file', { path: 'big.md' });
    assert.equal(first.truncated, true);
    assert.equal(first.size, Buffer.byteLength(big));
    assert.ok(first.length <= 1024 * 1024);
    const second = await callOk<{ content: string; truncated: boolean; nextOffset: number | null }>(h.client, 'read_file', { path: 'big.md', offset: first.nextOffset });
    assert.equal(second.truncated, false);
    assert.equal(second.nextOffset, null);
    assert.equal(first.content + second.content, big);
    // A range never splits a character: 4 bytes would end inside "ß", so 3 come back and the next range starts there.
    const slice = await callOk<{ content: string; length: number; nextOffset: number }>(h.client, 'read_file', { path: 'big.md', offset: 0, length: 4 });
    assert.deepEqual([slice.content, slice.length, slice.nextOffset], ['Gro', 3, 3]);
    const next = await callOk<{ content: string }>(h.client, 'read_file', { path: 'big.md', offset: 3, length: 2 });
    assert.equal(next.content, 'ß');
  });

  it('read_file refuses a file over security.maxFileSize, naming size and limit', async () => {
    fs.writeFileSync(path.join(h.workspace, 'huge.txt'), Buffer.alloc(3 * 1024 * 1024 + 1, 'a'));
    const message = await callError(h.client, 'read_file', { path: 'huge.txt' });
    assert.match(message, /3145729 bytes/);
    assert.match(message, /3145728 bytes \(security\.maxFileSize\)/);
  });

  it('write_file creates parent folders, replaces content atomically and keeps the file mode', async () => {
    const created = await callOk(h.client, 'write_file', { path: 'new/deep/note.md', content: '# New\n' });
    assert.deepEqual(created, { success: true, path: 'new/deep/note.md', bytes: 6, created: true });
    assert.equal(fs.readFileSync(path.join(h.workspace, 'new/deep/note.md'), 'utf8'), '# New\n');
    const file = path.join(h.workspace, 'ideas.md');
    fs.chmodSync(file, 0o640);
    const replaced = await callOk(h.client, 'write_file', { path: 'ideas.md', content: 'replaced' });
    assert.deepEqual(replaced, { success: true, path: 'ideas.md', bytes: 8, created: false });
    assert.equal(fs.readFileSync(file, 'utf8'), 'replaced');
    assert.equal(fs.statSync(file).mode & 0o777, 0o640);
    assert.deepEqual(fs.readdirSync(path.dirname(file)).filter((n) => n.includes('ideas.md.')), [], 'no temporary files left');
  });

  it('write_file refuses content over security.maxFileSize and non-text file types, leaving nothing on disk', async () => {
    const message = await callError(h.client, 'write_file', { path: 'too-big.md', content: 'a'.repeat(3 * 1024 * 1024 + 5) });
    assert.match(message, /3145733 bytes, over the limit of 3145728 bytes/);
    assert.equal(fs.existsSync(path.join(h.workspace, 'too-big.md')), false);
    assert.match(await callError(h.client, 'write_file', { path: 'tool.exe', content: 'MZ' }), /not a text or note file type/);
    assert.match(await callError(h.client, 'create_file', { path: 'Makefile' }), /security\.validateFileTypes/);
    assert.equal(fs.existsSync(path.join(h.workspace, 'tool.exe')), false);
  });

  it('never writes or deletes inside excluded folders such as .git (files.excludePatterns)', async () => {
    fs.mkdirSync(path.join(h.workspace, '.git', 'hooks'), { recursive: true });
    fs.writeFileSync(path.join(h.workspace, '.git', 'HEAD.txt'), 'ref');
    assert.match(await callError(h.client, 'write_file', { path: '.git/hooks/pre-commit.txt', content: 'x' }), /matches files\.excludePatterns \(\*\*\/\.git\/\*\*\)/);
    assert.match(await callError(h.client, 'delete_file', { path: '.git/HEAD.txt' }), /excluded files cannot be written or deleted/);
    assert.equal(fs.existsSync(path.join(h.workspace, '.git', 'hooks', 'pre-commit.txt')), false);
    assert.ok(fs.existsSync(path.join(h.workspace, '.git', 'HEAD.txt')));
  });

  it('create_file creates a file and refuses an existing path without touching it', async () => {
    assert.deepEqual(await callOk(h.client, 'create_file', { path: 'inbox/todo.md', content: '- [ ] x\n' }), { success: true, path: 'inbox/todo.md', bytes: 8 });
    assert.deepEqual(await callOk(h.client, 'create_file', { path: 'inbox/empty.md' }), { success: true, path: 'inbox/empty.md', bytes: 0 });
    const before = fs.readFileSync(path.join(h.workspace, 'index.md'), 'utf8');
    assert.match(await callError(h.client, 'create_file', { path: 'index.md', content: 'x' }), /"index.md" already exists/);
    assert.equal(fs.readFileSync(path.join(h.workspace, 'index.md'), 'utf8'), before);
  });

  it('delete_file deletes a file, says what it deleted, and refuses folders', async () => {
    fs.writeFileSync(path.join(h.workspace, 'gone.md'), 'bye');
    assert.deepEqual(await callOk(h.client, 'delete_file', { path: 'gone.md' }), { success: true, deleted: 'gone.md', size: 3, message: 'Deleted gone.md (3 bytes).' });
    assert.equal(fs.existsSync(path.join(h.workspace, 'gone.md')), false);
    assert.match(await callError(h.client, 'delete_file', { path: 'journal' }), /is a folder; delete_file removes files only/);
    assert.ok(fs.existsSync(path.join(h.workspace, 'journal/2024-03-02.md')));
    assert.match(await callError(h.client, 'delete_file', { path: 'gone.md' }), /File not found/);
  });

  it('write_file and create_file refuse a folder as a folder, whatever its name, and leave it as it was', async () => {
    for (const tool of ['write_file', 'create_file']) {
      // `journal` has no extension a note could have: the folder is what is refused, not the file type.
      for (const folder of ['journal', 'projects']) {
        assert.equal(await callError(h.client, tool, { path: folder, content: 'x' }), `"${folder}" is a folder, not a file.`, `${tool} ${folder}`);
      }
    }
    assert.ok(fs.statSync(path.join(h.workspace, 'journal')).isDirectory());
    assert.ok(fs.existsSync(path.join(h.workspace, 'journal/2024-03-02.md')));
    // A file that does not exist is still refused for its type.
    assert.match(await callError(h.client, 'write_file', { path: 'new-journal', content: 'x' }), /^"new-journal" is not a text or note file type/);
  });

  it('writes through a symbolic link inside the workspace: the note it leads to changes and the link stays', async () => {
    fs.writeFileSync(path.join(h.workspace, 'real-note.md'), 'old\n');
    fs.symlinkSync('real-note.md', path.join(h.workspace, 'alias.md'));
    assert.deepEqual(await callOk(h.client, 'write_file', { path: 'alias.md', content: 'new text\n' }), {
      success: true,
      path: 'alias.md',
      bytes: 9,
      created: false,
    });
    assert.ok(fs.lstatSync(path.join(h.workspace, 'alias.md')).isSymbolicLink(), 'alias.md is still a link');
    assert.equal(fs.readFileSync(path.join(h.workspace, 'real-note.md'), 'utf8'), 'new text\n');
    await callOk(h.client, 'update_note_metadata', { path: 'alias.md', metadata: { status: 'done' } });
    assert.ok(fs.lstatSync(path.join(h.workspace, 'alias.md')).isSymbolicLink(), 'still a link after update_note_metadata');
    assert.equal(fs.readFileSync(path.join(h.workspace, 'real-note.md'), 'utf8'), '---\nstatus: done\n---\nnew text\n');
    // A dangling link inside the workspace: creating it creates the note it names.
    fs.symlinkSync('to-be.md', path.join(h.workspace, 'pending.md'));
    await callOk(h.client, 'create_file', { path: 'pending.md', content: 'born\n' });
    assert.equal(fs.readFileSync(path.join(h.workspace, 'to-be.md'), 'utf8'), 'born\n');
    assert.ok(fs.lstatSync(path.join(h.workspace, 'pending.md')).isSymbolicLink());
  });

  it('writes through a dangling link reached through a folder link where the link really leads, not over another note', async () => {
    // notes/todo.md -> ../archive/todo.md (not there yet); shared -> notes. "shared/todo.md" leads to archive/todo.md.
    fs.mkdirSync(path.join(h.workspace, 'notes'));
    fs.mkdirSync(path.join(h.workspace, 'projects', 'archive'), { recursive: true });
    fs.symlinkSync('../archive/todo.md', path.join(h.workspace, 'notes', 'todo.md'));
    fs.symlinkSync('../notes', path.join(h.workspace, 'projects', 'shared'));
    fs.writeFileSync(path.join(h.workspace, 'projects', 'archive', 'todo.md'), 'another note\n');
    await callOk(h.client, 'write_file', { path: 'projects/shared/todo.md', content: 'through the links\n' });
    assert.equal(fs.readFileSync(path.join(h.workspace, 'projects', 'archive', 'todo.md'), 'utf8'), 'another note\n', 'the other note is untouched');
    assert.equal(fs.readFileSync(path.join(h.workspace, 'archive', 'todo.md'), 'utf8'), 'through the links\n');
    assert.equal((await callOk(h.client, 'read_file', { path: 'projects/shared/todo.md' })).content, 'through the links\n');
    // The same link, where the kernel reads it, leads out of the workspace: refused, nothing written anywhere.
    fs.symlinkSync('../../outside-the-workspace.md', path.join(h.workspace, 'notes', 'far.md'));
    assert.match(await callError(h.client, 'create_file', { path: 'projects/shared/far.md', content: 'x' }), /outside the workspace \(it leads through a symbolic link\)/);
    assert.ok(!fs.existsSync(path.join(h.workspace, 'outside-the-workspace.md')));
    assert.ok(!fs.existsSync(path.join(path.dirname(h.workspace), 'outside-the-workspace.md')));
  });

  it('never changes a file outside the workspace through a folder link that leads out and a link back in', async () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-outside-'));
    try {
      fs.writeFileSync(path.join(h.workspace, 'inside.md'), 'inside\n');
      fs.symlinkSync(path.join(h.workspace, 'inside.md'), path.join(outside, 'back.md'));
      fs.symlinkSync(outside, path.join(h.workspace, 'outlink'));
      assert.match(await callError(h.client, 'delete_file', { path: 'outlink/back.md' }), /outside the workspace \(its folder leads through a symbolic link\)/);
      assert.ok(fs.lstatSync(path.join(outside, 'back.md')).isSymbolicLink(), 'the link outside is still there');
      // A write goes where the path leads, inside; the link outside is left as it was.
      await callOk(h.client, 'write_file', { path: 'outlink/back.md', content: 'changed\n' });
      assert.ok(fs.lstatSync(path.join(outside, 'back.md')).isSymbolicLink(), 'the link outside was not replaced');
      assert.equal(fs.readFileSync(path.join(h.workspace, 'inside.md'), 'utf8'), 'changed\n');
    } finally {
      fs.rmSync(path.join(h.workspace, 'outlink'), { force: true });
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it('rejects arguments of the wrong type with a clear message, and keeps serving', async () => {
    const result = await call(h.client, 'read_file', { path: 42 });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /path/);
    assert.ok((await callOk(h.client, 'list_files')).count);
  });
});

describe('MCP list_files', () => {
  it('leaves out node_modules, .git and .DS_Store by default (files.excludePatterns)', async () => {
    const h = await startServer();
    try {
      for (const f of ['node_modules/pkg/readme.md', '.git/config', 'projects/.DS_Store']) {
        fs.mkdirSync(path.dirname(path.join(h.workspace, f)), { recursive: true });
        fs.writeFileSync(path.join(h.workspace, f), 'x');
      }
      const r = await callOk<{ files: string[] }>(h.client, 'list_files');
      assert.deepEqual(r.files, ['archive/old-draft.md', 'ideas.md', 'index.md', 'journal/2024-03-02.md', 'meetings/2024-03-01 Standup.md', 'projects/Project Plan.md', 'projects/budget.csv']);
    } finally {
      await h.close();
    }
  });

  it('lists every file recursively and sorted, without hidden files or excluded patterns', async () => {
    const h = await startServer({ config: { files: { excludePatterns: ['**/archive/**', '**/*.csv'] } } });
    try {
      fs.writeFileSync(path.join(h.workspace, '.DS_Store'), 'x');
      const r = await callOk<{ files: string[]; count: number }>(h.client, 'list_files');
      assert.deepEqual(r.files, ['ideas.md', 'index.md', 'journal/2024-03-02.md', 'meetings/2024-03-01 Standup.md', 'projects/Project Plan.md']);
      assert.equal(r.count, 5);
    } finally {
      await h.close();
    }
  });

  it('answers JSON of the fields its description names, once, in the text block, whatever the names', async () => {
    const h = await startServer();
    try {
      const names = ['quote "q".md', 'back\\slash.md', 'café 日本語 😀.md', 'tab\there.md'];
      for (const name of names) fs.writeFileSync(path.join(h.workspace, name), 'x');
      const { tools } = await h.client.listTools();
      const tool = tools.find((t) => t.name === 'list_files');
      assert.equal(tool?.outputSchema, undefined, 'no output schema: it would oblige the server to send the answer twice');
      assert.match(tool?.description ?? '', /\{"files": \[paths\], "count", "total", "truncated", "nextCursor"\}/);
      type Page = { files: string[]; count: number; total: number; truncated: boolean };
      let answer = answerOf<Page>(await call(h.client, 'list_files'));
      // The listing may not hold the new files yet at first: asked again until it does.
      for (let i = 0; i < 50 && !names.every((n) => answer.files.includes(n)); i++) {
        await new Promise((r) => setTimeout(r, 100));
        answer = answerOf<Page>(await call(h.client, 'list_files'));
      }
      assert.deepEqual(Object.keys(answer), ['files', 'count', 'total', 'truncated']);
      assert.ok(answer.files.every((f) => typeof f === 'string'));
      assert.ok(names.every((n) => answer.files.includes(n)), JSON.stringify(answer.files));
      assert.equal(answer.count, answer.files.length);
      assert.equal(answer.total, answer.files.length);
      assert.equal(answer.truncated, false);
    } finally {
      await h.close();
    }
  });

  it('pages with limit and cursor, each answer carrying total, truncated and nextCursor', async () => {
    const h = await startServer();
    try {
      const all = (await callOk<{ files: string[]; total: number; truncated: boolean }>(h.client, 'list_files'));
      assert.equal(all.total, 7);
      assert.equal(all.truncated, false);
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let i = 0; i < 10; i++) {
        const page = await callOk<{ files: string[]; count: number; total: number; truncated: boolean; nextCursor?: string }>(h.client, 'list_files', cursor === undefined ? { limit: 3 } : { limit: 3, cursor });
        assert.ok(page.count <= 3 && page.count === page.files.length);
        assert.equal(page.total, 7);
        seen.push(...page.files);
        if (!page.truncated) break;
        assert.equal(page.nextCursor, page.files.at(-1));
        cursor = page.nextCursor;
      }
      assert.deepEqual(seen, all.files);
      // A cursor naming no file continues after where it would sort.
      assert.deepEqual((await callOk<{ files: string[] }>(h.client, 'list_files', { cursor: 'j', limit: 2 })).files, ['journal/2024-03-02.md', 'meetings/2024-03-01 Standup.md']);
      const bad = await call(h.client, 'list_files', { limit: 0 });
      assert.equal(bad.isError, true);
      assert.match(textOf(bad), /limit/);
    } finally {
      await h.close();
    }
  });

  it('cuts a listing that does not fit in one 10 MB answer and gives the rest from nextCursor', async function () {
    this.timeout(120_000);
    const h = await startServer();
    try {
      // 17 000 paths of about 650 characters (two long folder names, a long file name): some 11 MB of paths.
      const folder = `many/${'d'.repeat(200)}/${'e'.repeat(200)}`;
      const dir = path.join(h.workspace, folder);
      fs.mkdirSync(dir, { recursive: true });
      const name = (i: number) => `${String(i).padStart(5, '0')} ${'n'.repeat(230)}.md`;
      for (let i = 0; i < 17_000; i++) fs.writeFileSync(path.join(dir, name(i)), '');
      const want = [...['archive/old-draft.md', 'ideas.md', 'index.md', 'journal/2024-03-02.md'], ...Array.from({ length: 17_000 }, (_, i) => `${folder}/${name(i)}`), ...['meetings/2024-03-01 Standup.md', 'projects/Project Plan.md', 'projects/budget.csv']];
      type Page = { files: string[]; count: number; total: number; truncated: boolean; nextCursor: string };
      let first = await call(h.client, 'list_files');
      // The listing may not hold the new files yet at first: asked again until it does.
      for (let i = 0; i < 50 && answerOf<Page>(first).total < want.length; i++) {
        await new Promise((r) => setTimeout(r, 200));
        first = await call(h.client, 'list_files');
      }
      const page = answerOf<Page>(first);
      assert.equal(page.total, want.length);
      assert.equal(page.truncated, true);
      assert.ok(page.count > 12_000 && page.count < want.length, String(page.count));
      const bytes = Buffer.byteLength(JSON.stringify({ result: first, jsonrpc: '2.0', id: 99 }));
      assert.ok(bytes <= 10 * 1024 * 1024 - 64 * 1024 && bytes > 10 * 1024 * 1024 - 64 * 1024 - 2048, `${bytes} bytes`);
      const rest = await callOk<{ files: string[]; truncated: boolean }>(h.client, 'list_files', { cursor: page.nextCursor });
      assert.equal(rest.truncated, false);
      assert.deepEqual([...page.files, ...rest.files], want);
    } finally {
      await h.close();
    }
  });

  it('shows hidden files when files.showHiddenFiles is on', async () => {
    const h = await startServer({ config: { files: { showHiddenFiles: true } } });
    try {
      const r = await callOk<{ files: string[] }>(h.client, 'list_files');
      assert.deepEqual(r.files, [
        '.hidden/secret.md', 'archive/old-draft.md', 'ideas.md', 'index.md', 'journal/2024-03-02.md', 'meetings/2024-03-01 Standup.md', 'projects/Project Plan.md', 'projects/budget.csv',
      ]);
    } finally {
      await h.close();
    }
  });
});
