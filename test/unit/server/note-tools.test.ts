// Note tools through a real MCP client: create_note, get_note_metadata, update_note_metadata.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { callError, callOk, startServer, type Harness } from './harness';

describe('MCP note tools', () => {
  let h: Harness;
  before(async () => {
    h = await startServer({ config: { files: { defaultNewFileTemplate: '# {title}\n\nCreated {date} at {time} ({datetime}).\n' } } });
  });
  after(async () => h?.close());

  it('create_note makes a file from the template with {title}, {date}, {time} and {datetime}', async () => {
    const r = await callOk<{ path: string; title: string }>(h.client, 'create_note', { title: 'Weekly Review' });
    assert.equal(r.path, 'Weekly Review.md');
    const text = fs.readFileSync(path.join(h.workspace, 'Weekly Review.md'), 'utf8');
    assert.match(text, /^# Weekly Review\n\nCreated \d{4}-\d{2}-\d{2} at \d{2}:\d{2} \(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}\)\.\n$/);
    const date = /Created (\d{4}-\d{2}-\d{2})/.exec(text)?.[1];
    assert.ok(date && Math.abs(Date.parse(date) - Date.now()) < 2 * 86400000, 'today');
  });

  it('create_note never overwrites: a taken name (in any letter case) gets " 2", " 3"', async () => {
    const first = await callOk<{ path: string }>(h.client, 'create_note', { title: 'Ideas', content: 'first' });
    assert.equal(first.path, 'Ideas 2.md', 'ideas.md exists; names differing only in case are taken too');
    const second = await callOk<{ path: string }>(h.client, 'create_note', { title: 'Ideas', content: 'second' });
    assert.equal(second.path, 'Ideas 3.md');
    assert.equal(fs.readFileSync(path.join(h.workspace, 'Ideas 2.md'), 'utf8'), 'first');
    assert.match(fs.readFileSync(path.join(h.workspace, 'ideas.md'), 'utf8'), /^# Ideas/);
  });

  it('create_note calls sent together with titles differing only in case get names that differ by more than case', async () => {
    for (const folder of [undefined, 'projects']) {
      const made = await Promise.all(['Plan', 'plan', 'PLAN'].map((title) => callOk<{ path: string }>(h.client, 'create_note', { title, content: title, ...(folder ? { folder } : {}) })));
      const names = made.map((r) => r.path.toLowerCase());
      assert.equal(new Set(names).size, 3, `distinct without letter case: ${made.map((r) => r.path).join(', ')}`);
      for (const [i, r] of made.entries()) assert.equal(fs.readFileSync(path.join(h.workspace, r.path), 'utf8'), ['Plan', 'plan', 'PLAN'][i]);
    }
  });

  it('create_note turns any title into a file name valid on Windows, macOS and Linux, in the given folder', async () => {
    const r = await callOk<{ path: string; title: string }>(h.client, 'create_note', { title: 'Q3: plan/review? <draft> "v2" *final*. ', folder: 'projects/2024', content: 'x' });
    assert.equal(r.path, 'projects/2024/Q3- plan-review- -draft- -v2- -final-.md');
    assert.equal(r.title, 'Q3: plan/review? <draft> "v2" *final*.', 'the title on one line, without surrounding spaces');
    assert.ok(fs.existsSync(path.join(h.workspace, r.path)));
    const con = await callOk<{ path: string }>(h.client, 'create_note', { title: 'CON', content: 'x' });
    assert.equal(con.path, '_CON.md');
  });

  it('create_note refuses a title of white space only, and makes no note', async () => {
    const before = fs.readdirSync(h.workspace).sort();
    for (const title of ['   ', '\n\t']) {
      assert.match(await callError(h.client, 'create_note', { title }), /-32602.*The title must hold a character other than white space/);
    }
    assert.deepEqual(fs.readdirSync(h.workspace).sort(), before);
  });

  it('create_note refuses a folder outside the workspace', async () => {
    assert.match(await callError(h.client, 'create_note', { title: 'x', folder: '../elsewhere' }), /outside the workspace/);
  });

  it('get_note_metadata returns frontmatter, tags, resolved links, headings, word count and times', async () => {
    const m = await callOk<Record<string, unknown>>(h.client, 'get_note_metadata', { path: 'index.md' });
    assert.equal(m.path, 'index.md');
    assert.equal(m.title, 'Home');
    assert.deepEqual(m.frontmatter, { title: 'Home', tags: ['home', 'moc'], created: '2024-03-01' });
    assert.deepEqual(m.tags, ['home', 'moc', 'inbox', 'reading-list']);
    assert.deepEqual(m.links, [
      { type: 'wikilink', target: 'Project Plan', heading: null, text: 'Project Plan', line: 8, path: 'projects/Project Plan.md', external: false },
      { type: 'wikilink', target: '2024-03-01 Standup', heading: null, text: 'standup notes', line: 8, path: 'meetings/2024-03-01 Standup.md', external: false },
      { type: 'markdown', target: 'ideas.md', heading: null, text: 'Ideas', line: 10, path: 'ideas.md', external: false },
      { type: 'wikilink', target: 'Project Plan', heading: 'Research', text: 'Project Plan', line: 10, path: 'projects/Project Plan.md', external: false },
      { type: 'markdown', target: 'https://example.org', heading: null, text: 'example.org', line: 11, path: null, external: true },
    ]);
    assert.deepEqual(m.headings, [{ level: 1, text: 'Home', line: 6 }]);
    assert.equal(typeof m.wordCount, 'number');
    assert.ok((m.wordCount as number) > 20 && (m.wordCount as number) < 60);
    const stat = fs.statSync(path.join(h.workspace, 'index.md'));
    assert.equal(m.modified, stat.mtime.toISOString());
    assert.ok(!Number.isNaN(Date.parse(m.created as string)));
    assert.equal(m.size, stat.size);
  });

  it('get_note_metadata resolves links against the files of now, after other programs add or remove the target', async () => {
    fs.writeFileSync(path.join(h.workspace, 'linking.md'), 'See [[Later Note]] and [the plan](<projects/Project Plan.md>).\n');
    const linkPaths = async () => (await callOk<{ links: Array<{ path: string | null }> }>(h.client, 'get_note_metadata', { path: 'linking.md' })).links.map((l) => l.path);
    assert.deepEqual(await linkPaths(), [null, 'projects/Project Plan.md']);
    fs.mkdirSync(path.join(h.workspace, 'later'));
    fs.writeFileSync(path.join(h.workspace, 'later/Later Note.md'), '# Later\n');
    assert.deepEqual(await linkPaths(), ['later/Later Note.md', 'projects/Project Plan.md']);
    fs.renameSync(path.join(h.workspace, 'projects/Project Plan.md'), path.join(h.workspace, 'projects/Plan (old).md'));
    fs.rmSync(path.join(h.workspace, 'later'), { recursive: true });
    assert.deepEqual(await linkPaths(), [null, null]);
    fs.renameSync(path.join(h.workspace, 'projects/Plan (old).md'), path.join(h.workspace, 'projects/Project Plan.md'));
    assert.deepEqual(await linkPaths(), [null, 'projects/Project Plan.md']);
  });

  it('get_note_metadata reports a missing note clearly', async () => {
    assert.match(await callError(h.client, 'get_note_metadata', { path: 'missing.md' }), /File not found: "missing.md"/);
  });

  it('update_note_metadata merges keys, removes null keys and keeps the body byte for byte', async () => {
    const file = path.join(h.workspace, 'projects/Project Plan.md');
    const before = fs.readFileSync(file, 'utf8');
    const body = before.slice(before.indexOf('---\n', 4) + 4);
    const r = await callOk(h.client, 'update_note_metadata', { path: 'projects/Project Plan.md', metadata: { status: 'done', owner: null, tags: ['work'] } });
    assert.deepEqual(r, { success: true, path: 'projects/Project Plan.md', frontmatter: { status: 'done', tags: ['work'] } });
    const after = fs.readFileSync(file, 'utf8');
    assert.ok(after.endsWith(body), 'body unchanged');
    assert.equal(after.slice(0, after.length - body.length), '---\nstatus: done\ntags:\n  - work\n---\n');
    const m = await callOk<{ frontmatter: unknown; tags: string[] }>(h.client, 'get_note_metadata', { path: 'projects/Project Plan.md' });
    assert.deepEqual(m.frontmatter, { status: 'done', tags: ['work'] });
  });

  it('update_note_metadata adds frontmatter to a note without one, body untouched', async () => {
    const file = path.join(h.workspace, 'journal/2024-03-02.md');
    const before = fs.readFileSync(file, 'utf8');
    await callOk(h.client, 'update_note_metadata', { path: 'journal/2024-03-02.md', metadata: { mood: 'calm' } });
    assert.equal(fs.readFileSync(file, 'utf8'), `---\nmood: calm\n---\n${before}`);
  });

  it('update_note_metadata that changes nothing leaves the note alone: same file, same modification time', async () => {
    const file = path.join(h.workspace, 'ideas.md');
    await callOk(h.client, 'update_note_metadata', { path: 'ideas.md', metadata: { status: 'draft' } });
    const bytes = fs.readFileSync(file);
    const old = new Date('2020-01-02T03:04:05Z');
    fs.utimesSync(file, old, old);
    const { ino } = fs.statSync(file);
    for (const metadata of [{ status: 'draft' }, {}, { gone: null }]) {
      const r = await callOk<{ frontmatter: Record<string, unknown> }>(h.client, 'update_note_metadata', { path: 'ideas.md', metadata });
      assert.deepEqual(r.frontmatter, { status: 'draft' });
      const after = fs.statSync(file);
      assert.equal(after.mtime.toISOString(), old.toISOString(), `${JSON.stringify(metadata)} did not touch the note`);
      assert.equal(after.ino, ino);
      assert.deepEqual(fs.readFileSync(file), bytes);
    }
    const recent = await callOk<{ recentFiles: Array<{ path: string }> }>(h.client, 'get_workspace_stats');
    assert.notEqual(recent.recentFiles[0].path, 'ideas.md');
  });

  it('update_note_metadata refuses files that are not notes', async () => {
    assert.match(await callError(h.client, 'update_note_metadata', { path: 'projects/budget.csv', metadata: { a: 1 } }), /not a note/);
    assert.equal(fs.readFileSync(path.join(h.workspace, 'projects/budget.csv'), 'utf8').startsWith('item,amount'), true);
  });
});
