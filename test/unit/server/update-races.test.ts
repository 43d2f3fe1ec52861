// A note another program changes between update_note_metadata's read and its write: that program's edit is kept.
// FileAccess.update runs the change between the two, so the other program's write is made right there.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FileAccess } from '../../../src/core/workspace/file-access';
import { PathGuard } from '../../../src/core/workspace/path-guard';
import { callOk, startServer } from './harness';

describe('a note changed by another program during an update', () => {
  let root: string;
  let files: FileAccess;
  let note: string;
  beforeEach(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-race-'));
    note = path.join(root, 'note.md');
    fs.writeFileSync(note, 'first line\n');
    files = new FileAccess(await PathGuard.create(root), { maxFileSize: 1 << 20, validateFileTypes: true, fileExtension: '.md' });
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  /** Another program saving the note the way editors do: a new file renamed over it. */
  const replaceByRename = (text: string) => {
    fs.writeFileSync(`${note}.other`, text);
    fs.renameSync(`${note}.other`, note);
  };

  /** An update adding `tag` as a last line; `meanwhile` runs once, after the first read. */
  const update = (tag: string, meanwhile: () => void) => {
    const seen: string[] = [];
    return files
      .update('note.md', (text) => {
        seen.push(text);
        if (seen.length === 1) meanwhile();
        return { text: `${text}${tag}\n`, result: seen.length };
      })
      .then(({ result }) => ({ attempts: result, seen }));
  };

  it('keeps an edit saved by renaming a new file over the note, and makes the update on it', async () => {
    const { attempts } = await update('tag: server', () => replaceByRename('first line\nedit of another program\n'));
    assert.equal(fs.readFileSync(note, 'utf8'), 'first line\nedit of another program\ntag: server\n');
    assert.equal(attempts, 2);
    assert.deepEqual(fs.readdirSync(root), ['note.md'], 'no temporary file left');
  });

  it('keeps an edit written into the note itself', async () => {
    await update('tag: server', () => fs.appendFileSync(note, 'appended by another program\n'));
    assert.equal(fs.readFileSync(note, 'utf8'), 'first line\nappended by another program\ntag: server\n');
  });

  it('does not bring back a note another program deleted', async () => {
    await assert.rejects(
      update('tag: server', () => fs.rmSync(note)),
      /File not found: "note\.md"/,
    );
    assert.deepEqual(fs.readdirSync(root), [], 'the note stays deleted, and no temporary file is left');
  });

  it('gives up, changing nothing, when the note changes at every attempt', async () => {
    let n = 0;
    await assert.rejects(
      files.update('note.md', (text) => {
        replaceByRename(`version ${++n}\n`);
        return { text: `${text}tag\n`, result: n };
      }),
      /"note\.md" kept changing while it was being updated \(another program writes it\); nothing was changed\. Try again\./,
    );
    assert.equal(fs.readFileSync(note, 'utf8'), `version ${n}\n`);
    assert.deepEqual(fs.readdirSync(root), ['note.md']);
  });

  it('update_note_metadata still sets its keys, and writes nothing when they are already there', async () => {
    const h = await startServer();
    try {
      fs.writeFileSync(path.join(h.workspace, 'plain.md'), 'Body.\n');
      const result = await callOk<{ frontmatter: Record<string, unknown> }>(h.client, 'update_note_metadata', { path: 'plain.md', metadata: { status: 'done' } });
      assert.deepEqual(result.frontmatter, { status: 'done' });
      assert.equal(fs.readFileSync(path.join(h.workspace, 'plain.md'), 'utf8'), '---\nstatus: done\n---\nBody.\n');
      const before = fs.statSync(path.join(h.workspace, 'plain.md'));
      await callOk(h.client, 'update_note_metadata', { path: 'plain.md', metadata: { status: 'done' } });
      assert.equal(fs.statSync(path.join(h.workspace, 'plain.md')).ino, before.ino);
    } finally {
      await h.close();
    }
  });
});
