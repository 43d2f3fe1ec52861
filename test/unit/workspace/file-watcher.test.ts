// watchFileContent: one file's changes, reported until the watch is disposed and never after.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { watchFileContent } from '../../../src/core/workspace/watcher';

describe('watchFileContent', () => {
  let dir: string;
  const realStat = fs.stat;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-file-watch-'));
  });
  afterEach(() => {
    fs.stat = realStat;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reports nothing once disposed, though a look at the file that saw a change was under way', async () => {
    const file = path.join(dir, 'note.md');
    fs.writeFileSync(file, 'before\n');
    let changes = 0;
    const watch = watchFileContent(file, () => changes++, 10);
    fs.writeFileSync(file, 'after, and longer\n');
    // The next look at the file sees the change; its answer is held until the watch is disposed.
    const held = new Promise<() => void>((resolve) => {
      fs.stat = ((p: fs.PathLike, callback: (err: NodeJS.ErrnoException | null, stats: fs.Stats) => void) => {
        realStat(p, (err, stats) => resolve(() => callback(err, stats)));
      }) as typeof fs.stat;
    });
    const answer = await held;
    fs.stat = realStat;
    watch.dispose();
    answer();
    assert.equal(changes, 0, 'an unsubscribed client hears of no change');
  });
});
