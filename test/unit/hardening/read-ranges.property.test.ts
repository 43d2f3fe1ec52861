// Property test: read_file's ranges, read on from each nextOffset, hold every byte of any text file once, and a
// UTF-8 file's ranges join up to its text, whatever the bytes (UTF-8 or not) and whatever length is asked for.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { FileAccess } from '../../../src/core/workspace/file-access';
import { PathGuard } from '../../../src/core/workspace/path-guard';

describe('read_file ranges (property)', function () {
  this.timeout(120_000);
  let root: string;
  let files: FileAccess;
  before(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-ranges-'));
    files = new FileAccess(await PathGuard.create(root), { maxFileSize: 1 << 20, validateFileTypes: true, fileExtension: '.md' });
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  // Whole characters of 1 to 4 bytes, and single bytes of any value but NUL (a NUL makes the file binary).
  const character = fc.constantFrom('a', ' ', '\n', 'é', 'ß', '€', '—', '😀', '\uFFFD').map((c) => Buffer.from(c));
  const byte = fc.integer({ min: 1, max: 255 }).map((b) => Buffer.from([b]));

  async function readAll(file: string, lengths: number[]) {
    const ranges: Array<{ offset: number; length: number; content: string }> = [];
    let offset: number | null = 0;
    for (let i = 0; offset !== null; i++) {
      const r = await files.read(file, { offset, length: lengths[i % lengths.length] });
      assert.equal(r.offset, offset, 'a range read on from nextOffset starts there');
      assert.ok(r.length > 0, 'and holds at least one byte');
      ranges.push(r);
      offset = r.nextOffset;
    }
    return ranges;
  }

  it('holds every byte once, for any bytes and lengths', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(character, byte), { minLength: 1, maxLength: 40 }), fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 5 }), async (parts, lengths) => {
        const bytes = Buffer.concat(parts);
        fs.writeFileSync(path.join(root, 'any.md'), bytes);
        const ranges = await readAll('any.md', lengths);
        assert.equal(ranges.reduce((n, r) => n + r.length, 0), bytes.length);
      }),
      { numRuns: 300 },
    );
  });

  it('joins up to the text of a UTF-8 file, each range whole characters', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(character, { minLength: 1, maxLength: 40 }), fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 5 }), async (parts, lengths) => {
        const text = Buffer.concat(parts).toString('utf8');
        fs.writeFileSync(path.join(root, 'utf8.md'), text);
        const ranges = await readAll('utf8.md', lengths);
        assert.equal(ranges.map((r) => r.content).join(''), text);
        for (const r of ranges) assert.ok(!r.content.includes('\uFFFD') || text.includes('\uFFFD'), `a whole character in each range: ${JSON.stringify(r)}`);
      }),
      { numRuns: 300 },
    );
  });
});
