// Deep merge of configuration updates: objects merge, arrays and scalars replace, inputs untouched.
import * as assert from 'node:assert/strict';
import { deepMerge } from '../../../src/core/config/merge';

describe('config deepMerge', () => {
  it('merges nested objects key by key and keeps untouched siblings', () => {
    const base = { editor: { fontSize: 16, fontFamily: 'A' }, ui: { showStatusBar: true } };
    assert.deepEqual(deepMerge(base, { editor: { fontSize: 20 } }), { editor: { fontSize: 20, fontFamily: 'A' }, ui: { showStatusBar: true } });
  });

  it('replaces arrays instead of concatenating them', () => {
    assert.deepEqual(deepMerge({ files: { excludePatterns: ['a', 'b'] } }, { files: { excludePatterns: ['c'] } }), { files: { excludePatterns: ['c'] } });
  });

  it('lets null replace an object and an object replace null', () => {
    assert.deepEqual(deepMerge({ customTheme: { name: 'x' } }, { customTheme: null }), { customTheme: null });
    assert.deepEqual(deepMerge({ customTheme: null }, { customTheme: { name: 'y' } }), { customTheme: { name: 'y' } });
  });

  it('ignores undefined values in the patch and adds new keys', () => {
    assert.deepEqual(deepMerge({ a: 1 }, { a: undefined, b: { c: 2 } }), { a: 1, b: { c: 2 } });
  });

  it('modifies neither input', () => {
    const base = { plugins: { settings: { p: { k: 1 } } } };
    const patch = { plugins: { settings: { p: { j: 2 } } } };
    const merged = deepMerge(base, patch) as typeof base & { plugins: { settings: { p: { j: number } } } };
    assert.deepEqual(merged, { plugins: { settings: { p: { k: 1, j: 2 } } } });
    merged.plugins.settings.p.k = 99;
    assert.deepEqual(base, { plugins: { settings: { p: { k: 1 } } } });
    assert.deepEqual(patch, { plugins: { settings: { p: { j: 2 } } } });
  });
});
