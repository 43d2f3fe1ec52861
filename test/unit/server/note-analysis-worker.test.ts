// Large notes are parsed in a worker thread: the same answers as the parse on the protocol thread, no other request
// held up meanwhile, and a cancelled request's parse stopped.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { INLINE_ANALYSIS_CHARS, NoteAnalyser } from '../../../src/core/notes/analyser';
import { analyseNote } from '../../../src/core/notes/metadata';
import { extractiveSummary } from '../../../src/core/notes/summary';
import { extractTasks } from '../../../src/core/notes/tasks';
import { callOk, startServer, type Harness } from './harness';

/** About a megabyte that markdown-it takes a second or so over: a long run of unclosed brackets. */
const SLOW = `---\ntitle: Slow\ntags: [big]\n---\n# Slow note\n\n- [ ] first task\n\n${'[a '.repeat(330_000)}\n`;
/** A large note of ordinary markdown: headings, links, tags and tasks. */
const LARGE = Array.from({ length: 3000 }, (_, i) => `## Part ${i}\n\nSee [[Note ${i % 40}]] and [the site](https://example.com/${i}) #topic${i % 7}. Words to count here.\n\n- [${i % 3 ? ' ' : 'x'}] task ${i}\n`).join('\n');

describe('note analysis of large notes in a worker thread', () => {
  let h: Harness;
  before(async () => {
    h = await startServer();
    fs.writeFileSync(path.join(h.workspace, 'slow.md'), SLOW);
    fs.writeFileSync(path.join(h.workspace, 'large.md'), LARGE);
    assert.ok(LARGE.length > INLINE_ANALYSIS_CHARS && SLOW.length > INLINE_ANALYSIS_CHARS, 'both notes are past the inline limit');
  });
  after(async () => h.close());

  it('answers metadata, tasks and summaries of a large note exactly as the parse on the protocol thread does', async () => {
    const metadata = await callOk<Record<string, unknown>>(h.client, 'get_note_metadata', { path: 'large.md' });
    const expected = analyseNote(LARGE);
    assert.equal(metadata.wordCount, expected.wordCount);
    assert.deepEqual(metadata.headings, expected.headings.slice(0, 5000));
    assert.deepEqual((metadata.links as Array<{ target: string; line: number }>).map((l) => [l.target, l.line]), expected.links.slice(0, 5000).map((l) => [l.target, l.line]));
    assert.deepEqual(metadata.tags, [...new Set(expected.inlineTags)]);
    assert.deepEqual(await callOk(h.client, 'extract_tasks', { path: 'large.md' }), { path: 'large.md', ...extractTasks(LARGE) });
    const summary = await callOk<{ summary: string }>(h.client, 'summarize_note', { path: 'large.md', maxLength: 300 });
    assert.equal(summary.summary, extractiveSummary(LARGE, 300));
    const slow = await callOk<{ title: string; tags: string[]; frontmatter: unknown }>(h.client, 'get_note_metadata', { path: 'slow.md' });
    assert.equal(slow.title, 'Slow');
    assert.deepEqual(slow.tags, ['big']);
  });

  it('holds up no other request while it parses', async () => {
    const order: string[] = [];
    const slow = callOk(h.client, 'extract_tasks', { path: 'slow.md' }).then(() => order.push('slow note'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const quick = Promise.all([
      callOk(h.client, 'read_file', { path: 'index.md' }),
      callOk(h.client, 'extract_tasks', { path: 'index.md' }),
      callOk(h.client, 'list_files', {}),
    ]).then(() => order.push('small requests'));
    await Promise.all([slow, quick]);
    assert.deepEqual(order, ['small requests', 'slow note']);
  });

  it('stops the parse of a cancelled request: the next large note does not wait for it', async () => {
    // How long the slow note takes on its own here, for comparison.
    let started = Date.now();
    await callOk(h.client, 'summarize_note', { path: 'slow.md' });
    const alone = Date.now() - started;

    const abort = new AbortController();
    const cancelled = h.client.callTool({ name: 'summarize_note', arguments: { path: 'slow.md' } }, undefined, { signal: abort.signal }).then(
      () => 'answered',
      (err: Error) => err.message,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    abort.abort('enough');
    started = Date.now();
    await callOk(h.client, 'extract_tasks', { path: 'large.md' });
    const next = Date.now() - started;
    assert.match(await cancelled, /enough|abort/i, 'the request was still being parsed when it was cancelled');
    assert.ok(next < alone / 2, `the next large note took ${next} ms; the slow note alone takes ${alone} ms`);
  });
});

describe('NoteAnalyser with the bundled worker', function () {
  this.timeout(60_000);
  const workerFile = path.resolve(__dirname, '../../../dist/note-worker.js');
  let analyser: NoteAnalyser;
  beforeEach(() => {
    assert.ok(fs.existsSync(workerFile), 'dist/note-worker.js is built (npm run build)');
    analyser = new NoteAnalyser(workerFile);
  });
  afterEach(() => analyser.dispose());

  it('parses a large note in the worker and a small one inline', async () => {
    assert.deepEqual(await analyser.tasks('- [ ] small\n'), extractTasks('- [ ] small\n'));
    assert.equal(analyser.workerRunning, false, 'a small note starts no worker');
    assert.deepEqual(await analyser.tasks(LARGE), extractTasks(LARGE));
    assert.equal(analyser.workerRunning, true);
  });

  it('answers a megabyte table, whose tokens need hundreds of megabytes', async () => {
    const row = `|${Array.from({ length: 20 }, (_, i) => i).join('|')}|\n`;
    const table = `- [ ] check the numbers\n\n${row}|${'-|'.repeat(20)}\n${row.repeat(Math.floor(1_000_000 / row.length))}`;
    const { tasks } = await analyser.tasks(table);
    assert.deepEqual(tasks, [{ text: 'check the numbers', status: 'todo', line: 1 }]);
  });

  it('a note over the analysis limit says it was cut, as the parse of its whole text does', async () => {
    const huge = `${LARGE}\n${'more words here\n'.repeat(200_000)}`;
    const expected = extractTasks(huge);
    assert.equal(expected.truncated, true);
    assert.deepEqual(await analyser.tasks(huge), expected);
    const metadata = await analyser.metadata(huge);
    assert.equal(metadata.truncated, true);
    assert.equal(metadata.wordCount, analyseNote(huge).wordCount);
  });

  it('answers a request cancelled before it starts with its reason, without throwing', async () => {
    const abort = new AbortController();
    abort.abort(new Error('gone'));
    const pending = analyser.tasks(LARGE, abort.signal);
    await assert.rejects(pending, /gone/);
  });
});
