// Deep merge of configuration updates: objects merge, arrays and scalars replace, inputs untouched.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import { deepMerge } from '../../../src/core/config/merge';
import { ConfigStore } from '../../../src/core/config/store';
import type { NotesError } from '../../../src/core/errors';
import { tempConfigDir } from './helpers';

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

describe('config updates with "__proto__" keys (parsed JSON from a tool or command argument)', () => {
  it('deepMerge keeps "__proto__" an ordinary key and never changes a prototype', () => {
    const patch = JSON.parse('{"editor":{"__proto__":{"fontSize":99}},"__proto__":{"polluted":true}}') as Record<string, unknown>;
    const merged = deepMerge({ editor: { fontSize: 16 } }, patch) as Record<string, Record<string, unknown>>;
    assert.equal(Object.getPrototypeOf(merged), Object.prototype);
    assert.equal(Object.getPrototypeOf(merged.editor), Object.prototype);
    assert.equal(merged.editor.fontSize, 16, 'no value arrives through the prototype');
    assert.deepEqual(Object.keys(merged).sort(), ['__proto__', 'editor']);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('updateConfig rejects them as unknown settings and leaves the file alone', async () => {
    const tmp = tempConfigDir();
    try {
      const store = new ConfigStore({ file: tmp.file });
      await store.updateConfig({ editor: { fontSize: 18 } });
      const before = fs.readFileSync(tmp.file, 'utf8');
      await assert.rejects(store.updateConfig(JSON.parse('{"editor":{"__proto__":{"fontSize":99}}}') as never), (err: NotesError) => {
        assert.equal(err.code, 'CONFIG_INVALID');
        assert.match(err.message, /__proto__/);
        return true;
      });
      assert.equal(fs.readFileSync(tmp.file, 'utf8'), before);
      assert.equal((await store.readConfig()).editor.fontSize, 18);
    } finally {
      tmp.cleanup();
    }
  });
});
