// Workspace and AI tools through a real MCP client: info, stats, summaries (extractive and sampling), tasks.
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { callError, callOk, startServer, type Harness } from './harness';

const NOTES = ['ideas.md', 'index.md', 'journal/2024-03-02.md', 'meetings/2024-03-01 Standup.md', 'projects/Project Plan.md', 'archive/old-draft.md'];

function sizeOf(workspace: string, files: string[]): number {
  return files.reduce((sum, f) => sum + fs.statSync(path.join(workspace, f)).size, 0);
}

describe('MCP workspace tools', () => {
  let h: Harness;
  before(async () => {
    h = await startServer();
  });
  after(async () => h?.close());

  it('get_workspace_info returns path, name, noteCount and size of the notes', async () => {
    const r = await callOk(h.client, 'get_workspace_info');
    assert.deepEqual(r, { path: h.workspace, name: path.basename(h.workspace), noteCount: NOTES.length, size: sizeOf(h.workspace, NOTES) });
  });

  it('get_workspace_stats returns totals, notes per folder and recent files newest first', async () => {
    const times: Record<string, number> = {
      'ideas.md': 1_700_000_500,
      'index.md': 1_700_000_400,
      'projects/Project Plan.md': 1_700_000_600,
      'journal/2024-03-02.md': 1_700_000_300,
      'meetings/2024-03-01 Standup.md': 1_700_000_200,
      'archive/old-draft.md': 1_700_000_100,
    };
    for (const [f, t] of Object.entries(times)) fs.utimesSync(path.join(h.workspace, f), t, t);
    const r = await callOk<{ totalNotes: number; totalSize: number; notesByFolder: Record<string, number>; recentFiles: Array<{ path: string; modified: string; size: number }> }>(
      h.client,
      'get_workspace_stats',
    );
    assert.equal(r.totalNotes, 6);
    assert.equal(r.totalSize, sizeOf(h.workspace, NOTES));
    assert.deepEqual(r.notesByFolder, { '.': 2, archive: 1, journal: 1, meetings: 1, projects: 1 });
    assert.deepEqual(
      r.recentFiles.map((f) => f.path),
      ['projects/Project Plan.md', 'ideas.md', 'index.md', 'journal/2024-03-02.md', 'meetings/2024-03-01 Standup.md', 'archive/old-draft.md'],
    );
    assert.deepEqual(r.recentFiles[0], {
      path: 'projects/Project Plan.md',
      modified: new Date(1_700_000_600 * 1000).toISOString(),
      size: fs.statSync(path.join(h.workspace, 'projects/Project Plan.md')).size,
    });
  });

  it('recentFiles holds at most 10 notes', async () => {
    for (let i = 0; i < 12; i++) fs.writeFileSync(path.join(h.workspace, `n${i}.md`), `note ${i}`);
    const r = await callOk<{ totalNotes: number; recentFiles: unknown[] }>(h.client, 'get_workspace_stats');
    assert.equal(r.totalNotes, 18);
    assert.equal(r.recentFiles.length, 10);
  });

  it('recentFiles with equal modified times (as shown, to the millisecond) come in path order, as list_files sorts', async () => {
    const t = 2_000_000_000; // newer than every other note here
    for (const [f, at] of [['a.md', t], ['B.md', t], ['c.md', t], ['b2.md', t + 0.0005]] as const) {
      fs.writeFileSync(path.join(h.workspace, f), f);
      fs.utimesSync(path.join(h.workspace, f), at, at);
    }
    const r = await callOk<{ recentFiles: Array<{ path: string; modified: string }> }>(h.client, 'get_workspace_stats');
    assert.deepEqual(
      r.recentFiles.slice(0, 4).map((f) => `${f.path} ${f.modified}`),
      ['B.md', 'a.md', 'b2.md', 'c.md'].map((f) => `${f} ${new Date(t * 1000).toISOString()}`),
      'the order does not depend on the locale, nor on a part of the time the answer does not show',
    );
  });
});

describe('MCP AI tools', () => {
  let h: Harness;
  before(async () => {
    h = await startServer();
  });
  after(async () => h?.close());

  it('summarize_note without sampling extracts sentences from the note within maxLength', async () => {
    const r = await callOk<{ summary: string; method: string; maxLength: number; path: string }>(h.client, 'summarize_note', { path: 'ideas.md', maxLength: 200 });
    assert.equal(r.method, 'extractive');
    assert.equal(r.path, 'ideas.md');
    assert.equal(r.maxLength, 200);
    assert.ok(r.summary.length > 40 && r.summary.length <= 200, r.summary);
    const text = fs.readFileSync(path.join(h.workspace, 'ideas.md'), 'utf8').replace(/\s+/g, ' ');
    for (const sentence of r.summary.split(/(?<=[.!?]) /)) assert.ok(text.includes(sentence), `"${sentence}" is taken from the note`);
    const again = await callOk<{ summary: string }>(h.client, 'summarize_note', { path: 'ideas.md', maxLength: 200 });
    assert.equal(again.summary, r.summary, 'deterministic');
  });

  it('extract_tasks lists every task item with text, status and line', async () => {
    const r = await callOk(h.client, 'extract_tasks', { path: 'projects/Project Plan.md' });
    assert.deepEqual(r, {
      path: 'projects/Project Plan.md',
      tasks: [
        { text: 'Compare markdown parsers', status: 'done', line: 13 },
        { text: 'Read the MCP specification', status: 'todo', line: 14 },
        { text: 'Draft the tool list', status: 'in-progress', line: 15 },
        { text: 'Evaluate a database backend', status: 'cancelled', line: 16 },
        { text: 'Mobile app, next quarter', status: 'deferred', line: 17 },
        { text: 'Numbered task: write the README', status: 'todo', line: 20 },
      ],
      truncated: false,
    });
    assert.deepEqual(await callOk(h.client, 'extract_tasks', { path: 'ideas.md' }), { path: 'ideas.md', tasks: [], truncated: false });
  });

  it('AI tools report a missing note', async () => {
    assert.match(await callError(h.client, 'summarize_note', { path: 'nope.md' }), /File not found/);
    assert.match(await callError(h.client, 'extract_tasks', { path: 'nope.md' }), /File not found/);
  });
});

describe('MCP summarize_note with client sampling', () => {
  it('asks the client model through sampling and says so', async () => {
    const prompts: string[] = [];
    const h = await startServer({
      clientOptions: { capabilities: { sampling: {} } },
      setup: (client) =>
        client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
          const content = request.params.messages[0].content;
          prompts.push(!Array.isArray(content) && content.type === 'text' ? content.text : '');
          return { role: 'assistant', model: 'test-model', content: { type: 'text', text: 'A note about local-first plain-text notes and fast search.' } };
        }),
    });
    try {
      const r = await callOk(h.client, 'summarize_note', { path: 'ideas.md', maxLength: 100 });
      assert.deepEqual(r, { path: 'ideas.md', summary: 'A note about local-first plain-text notes and fast search.', method: 'sampling', maxLength: 100, truncated: false });
      assert.equal(prompts.length, 1);
      assert.match(prompts[0], /at most 100 characters/);
      assert.match(prompts[0], /Local-first software keeps notes on your own disk/);
      // A note of frontmatter only: nothing to ask the model about.
      fs.writeFileSync(path.join(h.workspace, 'meta-only.md'), '---\ntitle: Only keys\ntags: [a]\n---\n\n');
      const empty = await callOk(h.client, 'summarize_note', { path: 'meta-only.md' });
      assert.deepEqual(empty, { path: 'meta-only.md', summary: '', method: 'extractive', maxLength: 500, truncated: false });
      assert.equal(prompts.length, 1, 'the client was not asked');
    } finally {
      await h.close();
    }
  });

  it('falls back to the extractive summary when sampling fails', async () => {
    const h = await startServer({
      clientOptions: { capabilities: { sampling: {} } },
      setup: (client) =>
        client.setRequestHandler(CreateMessageRequestSchema, async () => {
          throw new Error('user declined');
        }),
    });
    try {
      const r = await callOk<{ method: string; summary: string }>(h.client, 'summarize_note', { path: 'ideas.md' });
      assert.equal(r.method, 'extractive');
      assert.ok(r.summary.length > 0);
    } finally {
      await h.close();
    }
  });
});

/** Every note on disk now (markdown files outside hidden folders), with its size and modification time. */
function notesOnDisk(workspace: string): Array<{ path: string; size: number; mtimeMs: number }> {
  const out: Array<{ path: string; size: number; mtimeMs: number }> = [];
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(workspace, rel), { withFileTypes: true })) {
      if (e.name.startsWith('.')) continue;
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(child);
      else if (e.name.endsWith('.md')) {
        const st = fs.statSync(path.join(workspace, child));
        out.push({ path: child, size: st.size, mtimeMs: st.mtimeMs });
      }
    }
  };
  walk('');
  return out;
}

type Stats = { totalNotes: number; totalSize: number; notesByFolder: Record<string, number>; recentFiles: Array<{ path: string; modified: string; size: number }> };

for (const [label, config] of [
  ['from the index', {}],
  ['from the disk (files.watchForChanges: false)', { files: { watchForChanges: false } }],
] as const) {
  describe(`MCP workspace tools on a workspace other programs change, ${label}`, () => {
    let h: Harness;
    beforeEach(async () => {
      h = await startServer({ config });
    });
    afterEach(async () => h?.close());

    /** What the tools must answer, computed from the disk. */
    const expected = () => {
      const notes = notesOnDisk(h.workspace);
      const byFolder: Record<string, number> = {};
      for (const n of notes) {
        const folder = n.path.includes('/') ? n.path.slice(0, n.path.lastIndexOf('/')) : '.';
        byFolder[folder] = (byFolder[folder] ?? 0) + 1;
      }
      const newest = [...notes].sort((a, b) => b.mtimeMs - a.mtimeMs || a.path.localeCompare(b.path))[0];
      return { count: notes.length, size: notes.reduce((s, n) => s + n.size, 0), byFolder, newest };
    };

    it('answers with the sizes, times and notes of now after edits, a deletion and a new folder', async () => {
      await callOk(h.client, 'get_workspace_stats'); // the sizes and times are known from here on
      await callOk(h.client, 'get_workspace_info');
      fs.appendFileSync(path.join(h.workspace, 'ideas.md'), '\nA much longer idea, appended by another program.\n'.repeat(20));
      const t = Date.now() / 1000 + 3600;
      fs.utimesSync(path.join(h.workspace, 'journal/2024-03-02.md'), t, t);
      fs.rmSync(path.join(h.workspace, 'archive/old-draft.md'));
      fs.mkdirSync(path.join(h.workspace, 'later'));
      fs.writeFileSync(path.join(h.workspace, 'later/new.md'), '# New\n');
      const want = expected();
      const stats = await callOk<Stats>(h.client, 'get_workspace_stats');
      assert.equal(stats.totalNotes, want.count);
      assert.equal(stats.totalSize, want.size);
      assert.deepEqual(stats.notesByFolder, want.byFolder);
      assert.equal(stats.notesByFolder.later, 1);
      assert.equal(stats.notesByFolder.archive, undefined);
      assert.deepEqual(stats.recentFiles[0], { path: 'journal/2024-03-02.md', modified: new Date(want.newest.mtimeMs).toISOString(), size: want.newest.size });
      const info = await callOk<{ noteCount: number; size: number }>(h.client, 'get_workspace_info');
      assert.equal(info.noteCount, want.count);
      assert.equal(info.size, want.size);
    });

    it('answers with a note’s new size and time when nothing else changed, call after call', async () => {
      for (let round = 1; round <= 3; round++) {
        // Two calls with no change between them (the second may be answered from what the first kept)...
        await callOk(h.client, 'get_workspace_info');
        assert.equal((await callOk<{ size: number }>(h.client, 'get_workspace_info')).size, expected().size);
        // ...then only one note's text, or only its time, changes.
        if (round === 2) {
          const t = Date.now() / 1000 + 3600 * round;
          fs.utimesSync(path.join(h.workspace, 'journal/2024-03-02.md'), t, t);
        } else fs.appendFileSync(path.join(h.workspace, 'ideas.md'), 'x'.repeat(100 * round));
        const want = expected();
        const info = await callOk<{ noteCount: number; size: number }>(h.client, 'get_workspace_info');
        assert.deepEqual([info.noteCount, info.size], [want.count, want.size], `round ${round}`);
        const stats = await callOk<Stats>(h.client, 'get_workspace_stats');
        assert.equal(stats.totalSize, want.size);
        assert.deepEqual(stats.recentFiles[0], { path: want.newest.path, modified: new Date(want.newest.mtimeMs).toISOString(), size: want.newest.size });
      }
    });

    it('answers with the files of a folder that replaced another of the same name', async () => {
      fs.mkdirSync(path.join(h.workspace, 'swap/sub'), { recursive: true });
      fs.writeFileSync(path.join(h.workspace, 'swap/a.md'), 'small');
      fs.writeFileSync(path.join(h.workspace, 'swap/sub/deep.md'), 'deep and small');
      const first = await callOk<Stats>(h.client, 'get_workspace_stats');
      assert.equal(first.totalSize, expected().size);
      // Another folder, holding a note of the same name but another size and time, takes its place.
      fs.mkdirSync(path.join(h.workspace, 'staged/sub'), { recursive: true });
      fs.writeFileSync(path.join(h.workspace, 'staged/a.md'), 'a much larger note than the one it replaces\n'.repeat(10));
      fs.writeFileSync(path.join(h.workspace, 'staged/sub/deep.md'), 'deeper, and larger than the note it replaces\n'.repeat(7));
      const t = Date.now() / 1000 + 7200;
      fs.utimesSync(path.join(h.workspace, 'staged/a.md'), t, t);
      fs.renameSync(path.join(h.workspace, 'swap'), path.join(h.workspace, 'moved'));
      fs.renameSync(path.join(h.workspace, 'staged'), path.join(h.workspace, 'swap'));
      const want = expected();
      const stats = await callOk<Stats>(h.client, 'get_workspace_stats');
      assert.equal(stats.totalSize, want.size);
      assert.equal(want.newest.path, 'swap/a.md');
      assert.equal(stats.notesByFolder.moved, 1);
      assert.equal(stats.notesByFolder['swap/sub'], 1);
      assert.deepEqual(stats.recentFiles[0], { path: 'swap/a.md', modified: new Date(want.newest.mtimeMs).toISOString(), size: want.newest.size });
    });

    it('answers with the size of a note changed through another name of the same file (a hard link)', async () => {
      fs.mkdirSync(path.join(h.workspace, 'mirror'));
      fs.linkSync(path.join(h.workspace, 'ideas.md'), path.join(h.workspace, 'mirror/ideas-link.md'));
      assert.equal((await callOk<Stats>(h.client, 'get_workspace_stats')).totalSize, expected().size);
      fs.appendFileSync(path.join(h.workspace, 'mirror/ideas-link.md'), 'x'.repeat(1000));
      const want = expected();
      assert.equal((await callOk<Stats>(h.client, 'get_workspace_stats')).totalSize, want.size);
      assert.equal((await callOk<{ size: number }>(h.client, 'get_workspace_info')).size, want.size);
    });
  });
}
