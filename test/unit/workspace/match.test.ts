// matchLines, the one function that decides which lines a query matches (index, disk scan and ripgrep's lines alike).
import * as assert from 'node:assert/strict';
import { matchLines } from '../../../src/core/workspace/match';

/** Every way matchLines is run: line by line, candidates from the whole text, and only lines holding a text. */
function allWays(text: string, source: string, flags: string, required?: string[]) {
  const ways = [matchLines(text, source, flags, 100), matchLines(text, source, flags, 100, true)];
  if (required) ways.push(matchLines(text, source, flags, 100, false, required));
  return ways;
}

describe('matchLines and zero-length matches', () => {
  it('skips an empty first match and finds the line by its next match, as ripgrep does', () => {
    for (const got of allWays('Total: 42\n42 apples\nnone\n', '\\d*', 'u')) {
      assert.deepEqual(got, [
        [1, 'Total: 42', '42'],
        [2, '42 apples', '42'],
      ]);
    }
  });

  it('skips empty matches case-insensitively and with texts every match holds', () => {
    for (const got of allWays('say Hello\r\nhello\nnothing\n', '(?:hello)?', 'iu', ['hello'])) {
      assert.deepEqual(got, [
        [1, 'say Hello', 'Hello'],
        [2, 'hello', 'hello'],
      ]);
    }
  });

  it('steps over a whole character outside the BMP in Unicode mode, and still ends on lines with no match', () => {
    for (const got of allWays('😀😀x\n😀\n\nabc\n', 'x*', 'u')) assert.deepEqual(got, [[1, '😀😀x', 'x']]);
    for (const got of allWays('😀😀x\n😀\n', 'x*', '')) assert.deepEqual(got, [[1, '😀😀x', 'x']]);
  });

  it('counts no line whose only matches are empty', () => {
    for (const got of allWays('abc\n\nabx\n', 'x?$', 'u')) assert.deepEqual(got, [[3, 'abx', 'x']]);
    for (const got of allWays('a\n\nb\n', '^$', 'u')) assert.deepEqual(got, []);
  });
});
