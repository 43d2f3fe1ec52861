// Values a server process makes for itself on first use (see per-process.ts): random keys and placeholders.
import * as assert from 'node:assert/strict';
import { perProcessValue } from '../../../server/per-process';

describe('per-process values', () => {
  it('are made on the first get, once, and peek answers undefined until then', () => {
    let made = 0;
    const value = perProcessValue(() => ({ n: ++made }));
    assert.equal(value.peek(), undefined);
    assert.equal(made, 0, 'nothing is made before it is asked for');
    const first = value.get();
    assert.deepEqual(first, { n: 1 });
    assert.equal(value.get(), first, 'the same value on every get');
    assert.equal(value.peek(), first);
    assert.equal(made, 1);
  });

  it('are made by each value for itself', () => {
    const a = perProcessValue(() => Symbol('a'));
    const b = perProcessValue(() => Symbol('b'));
    assert.notEqual(a.get(), b.get());
  });
});
