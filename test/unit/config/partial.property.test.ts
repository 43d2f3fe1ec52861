// Property: whatever mix of valid and invalid fields a file has, valid ones are kept and each invalid one defaults.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { defaultConfig } from '../../../src/core/config/schema';
import { validateConfig } from '../../../src/core/config/validate';

// [dotted path, a valid non-default value, an invalid value]
const FIELDS: [string, unknown, unknown][] = [
  ['theme', 'dark', 'purple'],
  ['editor.fontSize', 20, 40],
  ['editor.lineHeight', 2.5, 0.5],
  ['editor.fontFamily', 'Georgia', 12],
  ['editor.wordWrap', false, 'no'],
  ['editor.tabSize', 8, 0],
  ['files.fileExtension', '.txt', 'txt'],
  ['files.excludePatterns', ['a/**'], ['a/**', 3]],
  ['search.maxResults', 50, 0],
  ['integrations.mcp.port', 4000, 70000],
  ['integrations.mcp.tools.ai', false, 'off'],
  ['integrations.mail.defaultLabels', ['UNREAD'], 'UNREAD'],
  ['ui.sidebarPosition', 'right', 'top'],
  ['performance.cacheSize', 5, -5],
  ['security.maxFileSize', 2048, 0],
  ['development.devTools', true, 1],
];

function get(obj: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), obj);
}

function set(obj: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = obj;
  for (const k of keys.slice(0, -1)) node = (node[k] ??= {}) as Record<string, unknown>;
  node[keys[keys.length - 1]] = value;
}

describe('config partial invalidity (property)', () => {
  it('keeps every valid field, defaults every invalid one, and reports exactly the invalid ones', () => {
    const choice = fc.constantFrom('absent', 'valid', 'invalid');
    fc.assert(
      fc.property(fc.tuple(...FIELDS.map(() => choice)), (choices) => {
        const raw: Record<string, unknown> = { version: '1.1.0' };
        FIELDS.forEach(([path, good, bad], i) => {
          if (choices[i] !== 'absent') set(raw, path, choices[i] === 'valid' ? good : bad);
        });
        const { config, problems } = validateConfig(raw);
        const defaults = defaultConfig();
        FIELDS.forEach(([path, good], i) => {
          assert.deepEqual(get(config, path), choices[i] === 'valid' ? good : get(defaults, path), path);
        });
        const invalid = FIELDS.filter((_, i) => choices[i] === 'invalid').map(([path]) => path);
        assert.deepEqual(problems.map((p) => p.slice(0, p.indexOf(':'))).sort(), [...invalid].sort());
      }),
      { numRuns: 300 },
    );
  });
});
