// Prompts through a real MCP client: list with arguments, get with the note embedded, path completion.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, type Harness } from './harness';

describe('MCP prompts', () => {
  let h: Harness;
  before(async () => {
    h = await startServer();
  });
  after(async () => h?.close());

  it('prompts/list offers summarize-note, extract-action-items and improve-writing with declared arguments', async () => {
    const { prompts } = await h.client.listPrompts();
    assert.deepEqual(
      prompts.map((p) => [p.name, (p.arguments ?? []).map((a) => `${a.name}${a.required ? '!' : '?'}`)]).sort(),
      [
        ['extract-action-items', ['path!']],
        ['improve-writing', ['path!', 'focus?']],
        ['summarize-note', ['path!', 'length?']],
      ],
    );
    for (const p of prompts) {
      assert.ok(p.title && p.description, `${p.name} has a title and description`);
      for (const a of p.arguments ?? []) assert.ok(a.description, `${p.name}.${a.name} is described`);
    }
  });

  it('summarize-note embeds the note as a resource after the instruction', async () => {
    const r = await h.client.getPrompt({ name: 'summarize-note', arguments: { path: 'ideas.md', length: '3 bullet points' } });
    assert.equal(r.messages.length, 2);
    const [instruction, note] = r.messages;
    assert.equal(instruction.role, 'user');
    assert.ok(instruction.content.type === 'text' && /Summarize the note "ideas.md" below in 3 bullet points/.test(instruction.content.text));
    assert.deepEqual(note.content, {
      type: 'resource',
      resource: { uri: 'notesapp://notes/ideas.md', mimeType: 'text/markdown', text: fs.readFileSync(path.join(h.workspace, 'ideas.md'), 'utf8') },
    });
  });

  it('embeds a text file that is not a note (a .csv) as plain text, as resources/read gives it, not as markdown', async () => {
    fs.writeFileSync(path.join(h.workspace, 'budget.csv'), 'item,cost\npaper,3\n');
    try {
      const r = await h.client.getPrompt({ name: 'summarize-note', arguments: { path: 'budget.csv' } });
      const embedded = { uri: 'notesapp://notes/budget.csv', mimeType: 'text/plain', text: 'item,cost\npaper,3\n' };
      assert.deepEqual(r.messages[1].content, { type: 'resource', resource: embedded });
      const read = await h.client.readResource({ uri: embedded.uri });
      assert.deepEqual(read.contents[0], embedded);
    } finally {
      fs.rmSync(path.join(h.workspace, 'budget.csv'));
    }
  });

  it('extract-action-items lists the task items already in the note', async () => {
    const r = await h.client.getPrompt({ name: 'extract-action-items', arguments: { path: 'meetings/2024-03-01 Standup.md' } });
    const text = r.messages[0].content.type === 'text' ? r.messages[0].content.text : '';
    assert.match(text, /"Lee: review the search results format" \(todo, line 5\)/);
    assert.match(text, /"Dana: set up the workspace" \(done, line 6\)/);
  });

  it('improve-writing takes a focus and asks to keep links and frontmatter', async () => {
    const r = await h.client.getPrompt({ name: 'improve-writing', arguments: { path: 'index.md', focus: 'tone' } });
    const text = r.messages[0].content.type === 'text' ? r.messages[0].content.text : '';
    assert.match(text, /improve tone\./);
    for (const focus of ['', '   ']) {
      const blank = await h.client.getPrompt({ name: 'improve-writing', arguments: { path: 'index.md', focus } });
      const said = blank.messages[0].content.type === 'text' ? blank.messages[0].content.text : '';
      assert.match(said, /improve clarity and concision\./, `focus ${JSON.stringify(focus)}`);
    }
    assert.match(text, /\[\[wikilinks\]\]/);
    assert.equal(r.messages[1].content.type, 'resource');
  });

  it('answers a missing note with an error', async () => {
    await assert.rejects(h.client.getPrompt({ name: 'summarize-note', arguments: { path: 'missing.md' } }), (err: Error & { code?: number }) => {
      assert.match(err.message, /File not found: "missing.md"/);
      assert.equal(err.code, -32602);
      return true;
    });
  });

  it('answers an unknown prompt and arguments that do not fit it with -32602, its details, the prompt and each issue', async () => {
    type Refusal = Error & { code?: number; data?: { details?: unknown; prompt?: unknown; issues?: unknown } };
    const refused = async (params: { name: string; arguments?: Record<string, string> }) => {
      let caught: Refusal | undefined;
      await h.client.getPrompt(params).catch((err: Refusal) => (caught = err));
      assert.ok(caught, `${JSON.stringify(params)} is refused`);
      assert.equal(caught.code, -32602);
      assert.ok(caught.message.endsWith(String(caught.data?.details)), 'details is the message');
      return { details: caught.data?.details, prompt: caught.data?.prompt, issues: caught.data?.issues };
    };
    assert.deepEqual(await refused({ name: 'nope' }), {
      details: 'Unknown prompt "nope". This server\'s prompts: summarize-note, extract-action-items, improve-writing.',
      prompt: 'nope',
      issues: undefined,
    });
    assert.deepEqual(await refused({ name: 'summarize-note', arguments: {} }), {
      details: 'Invalid arguments for prompt summarize-note: path: Invalid input: expected string, received undefined',
      prompt: 'summarize-note',
      issues: ['path: Invalid input: expected string, received undefined'],
    });
    assert.deepEqual((await refused({ name: 'extract-action-items' })).issues, ['path: Invalid input: expected string, received undefined']);
  });

  it('answers a note too large for a prompt with what to do instead, not with read_file arguments a prompt does not have', async () => {
    // 9.5 MB, under security.maxFileSize: quotes and line ends take two bytes each in JSON, past the reply limit.
    const line = 'He said "hello" to me\n';
    fs.writeFileSync(path.join(h.workspace, 'long.md'), line.repeat(Math.floor(9_500_000 / line.length)));
    try {
      for (const name of ['summarize-note', 'extract-action-items', 'improve-writing']) {
        await assert.rejects(h.client.getPrompt({ name, arguments: { path: 'long.md' } }), (err: Error & { code?: number }) => {
          assert.equal(err.code, -32005, name);
          assert.match(
            err.message,
            /^MCP error -32005: Result too large\. The result would be \d+ bytes; the limit is 10420224 bytes\. A prompt carries its note whole, so this note is too large for one: split it into smaller notes, or have the assistant read it with the read_file tool in ranges \(offset and length\) instead of using the prompt\.$/,
          );
          return true;
        });
      }
    } finally {
      fs.rmSync(path.join(h.workspace, 'long.md'));
    }
  });

  it('completes the note path argument', async () => {
    const r = await h.client.complete({ ref: { type: 'ref/prompt', name: 'improve-writing' }, argument: { name: 'path', value: 'jour' } });
    assert.deepEqual(r.completion.values, ['journal/2024-03-02.md']);
  });
});
