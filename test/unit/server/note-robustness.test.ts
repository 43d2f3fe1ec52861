// Note tools on awkward notes, through real stdio: abbreviations in prose, broken frontmatter, binaries, odd names.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { callError, callOk, startServer, type Harness } from './harness';

describe('note tools on awkward notes', () => {
  let h: Harness;
  before(async () => {
    h = await startServer();
  });
  after(async () => h?.close());

  function write(relative: string, content: string | Buffer): void {
    fs.mkdirSync(path.dirname(path.join(h.workspace, relative)), { recursive: true });
    fs.writeFileSync(path.join(h.workspace, relative), content);
  }

  it('summarize_note keeps whole sentences: abbreviations, version numbers and URLs do not cut them', async () => {
    const sentences = ['Use e.g. Node 20.1 here.', 'Visit https://example.com/a.b now.', 'Dr. Lee signed v1.2 of the plan.'];
    write('abbrev.md', `# Abbreviations\n\n${sentences.join(' ')}\n`);
    const whole = await callOk<{ summary: string }>(h.client, 'summarize_note', { path: 'abbrev.md', maxLength: 500 });
    assert.equal(whole.summary, sentences.join(' '));
    const short = await callOk<{ summary: string }>(h.client, 'summarize_note', { path: 'abbrev.md', maxLength: 40 });
    assert.ok(sentences.includes(short.summary), `"${short.summary}" is one whole sentence of the note`);
  });
});
