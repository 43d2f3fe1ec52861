// Frontmatter: parsing with gray-matter, merging, and the body kept byte for byte.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { splitNote, updateFrontmatter } from '../../../src/core/notes/frontmatter';

describe('notes/frontmatter', () => {
  it('splits frontmatter from the body and counts its lines', () => {
    const note = splitNote('---\ntitle: A\ntags: [x, y]\n---\n# A\nbody\n');
    assert.deepEqual(note, { data: { title: 'A', tags: ['x', 'y'] }, body: '# A\nbody\n', bodyLineOffset: 4 });
  });

  it('treats a note without frontmatter as all body, and a horizontal rule later on as body', () => {
    assert.deepEqual(splitNote('# Title\n\n---\n\ntext'), { data: {}, body: '# Title\n\n---\n\ntext', bodyLineOffset: 0 });
  });

  it('reports YAML dates as written: YYYY-MM-DD, or ISO 8601 with a time', () => {
    assert.deepEqual(splitNote('---\ndate: 2024-03-01\nat: 2024-03-01T10:30:00Z\n---\n').data, { date: '2024-03-01', at: '2024-03-01T10:30:00.000Z' });
  });

  it('keeps untouched dates as YAML dates when other keys are updated', () => {
    const { text, data } = updateFrontmatter('---\ndue: 2024-03-01\n---\nbody', { status: 'open' });
    assert.deepEqual(data, { due: '2024-03-01', status: 'open' });
    assert.equal(text, '---\ndue: 2024-03-01\nstatus: open\n---\nbody', 'the date as written, not a timestamp or a quoted string');
    assert.deepEqual(splitNote(text).data, { due: '2024-03-01', status: 'open' });
  });

  it('reads a note with invalid YAML as empty frontmatter plus the reason, and refuses to update it', () => {
    const split = splitNote('---\nkey: [unclosed\n---\nbody');
    assert.deepEqual({ data: split.data, body: split.body, bodyLineOffset: split.bodyLineOffset }, { data: {}, body: 'body', bodyLineOffset: 3 });
    assert.match(split.frontmatterError ?? '', /unclosed|flow collection|end of the stream/);
    assert.throws(() => updateFrontmatter('---\nkey: [unclosed\n---\nbody', { a: 1 }), /frontmatter is not valid YAML/);
  });

  it('merges keys, removes null keys, drops an emptied block, and keeps CRLF line ends', () => {
    assert.equal(updateFrontmatter('---\na: 1\nb: 2\n---\nbody', { b: null, c: 'x' }).text, '---\na: 1\nc: x\n---\nbody');
    assert.equal(updateFrontmatter('---\na: 1\n---\nbody\n', { a: null }).text, 'body\n');
    assert.equal(updateFrontmatter('---\r\na: 1\r\n---\r\nbody\r\n', { b: true }).text, '---\r\na: 1\r\nb: true\r\n---\r\nbody\r\n');
  });

  it('never changes the body, whatever it holds', () => {
    fc.assert(
      fc.property(fc.string(), fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }).filter((k) => /^[a-z]+$/.test(k)), fc.oneof(fc.string(), fc.integer(), fc.constant(null))), (body, patch) => {
        // A body that itself starts with a frontmatter-like block would be read as frontmatter; start it with text.
        const text = `---\ntitle: T\n---\nx${body}`;
        const { text: updated } = updateFrontmatter(text, patch);
        assert.ok(updated.endsWith(`x${body}`));
        assert.equal(splitNote(updated).body, `x${body}`);
      }),
      { numRuns: 200 },
    );
  });
});
