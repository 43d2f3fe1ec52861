// Property tests: no generated path, however built, lets a write through the guard change anything outside.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { isNotesError } from '../../../src/core/errors';
import { PathGuard, resolveLexically } from '../../../src/core/workspace/path-guard';

/** Every file below `dir` with its content (symlinks listed by target), as one comparable snapshot. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      if (entry.isSymbolicLink()) out[full] = `link:${fs.readlinkSync(full)}`;
      else if (entry.isDirectory()) {
        out[full] = 'dir';
        walk(full);
      } else out[full] = fs.readFileSync(full, 'utf8');
    }
  };
  walk(dir);
  return out;
}

// Segments chosen to hit every rule: traversal, prefix collisions, links out and in, dangling links, odd names.
const segment = fc.oneof(
  fc.constantFrom('..', '.', '', 'sub', 'allowed', 'allowed_evil', 'out', 'in', 'dangling', 'chain', 'loop'),
  fc.constantFrom('..\\..', '..%2f', '...', '..x', 'x..', 'note.md', '\0', 'a\0b', '~', '$HOME', 'C:', 'CON'),
  fc.stringMatching(/^[a-z.\\/]{1,6}$/),
);
const generatedPath = fc
  .tuple(fc.constantFrom('', '/', '\\', '<root>/', '<tmp>/'), fc.array(segment, { minLength: 1, maxLength: 7 }), fc.constantFrom('/', '\\'))
  .map(([lead, parts, sep]) => ({ lead, text: parts.join(sep) }));

describe('PathGuard properties', () => {
  let tmp: string;
  let root: string;
  let outsideBefore: Record<string, string>;
  let guard: PathGuard;

  before(async () => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'notes-guard-prop-')));
    root = path.join(tmp, 'allowed');
    const evil = path.join(tmp, 'allowed_evil');
    fs.mkdirSync(path.join(root, 'sub'), { recursive: true });
    fs.mkdirSync(evil);
    fs.writeFileSync(path.join(evil, 'secret.txt'), 'secret');
    fs.writeFileSync(path.join(tmp, 'beside.txt'), 'beside');
    fs.symlinkSync(evil, path.join(root, 'out'));
    fs.symlinkSync(path.join(root, 'sub'), path.join(root, 'in'));
    fs.symlinkSync(path.join(evil, 'made-through-link.md'), path.join(root, 'dangling'));
    fs.symlinkSync(path.join(root, 'dangling'), path.join(root, 'chain'));
    fs.symlinkSync(path.join(root, 'loop'), path.join(root, 'loop'));
    fs.symlinkSync('../allowed_evil', path.join(root, 'sub', 'up'));
    outsideBefore = Object.fromEntries(Object.entries(snapshot(tmp)).filter(([p]) => !p.startsWith(root + path.sep)));
    guard = await PathGuard.create(root);
  });

  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('never resolves a path whose write lands outside the workspace', async () => {
    await fc.assert(
      fc.asyncProperty(generatedPath, async ({ lead, text }) => {
        const input = lead.replace('<root>', root).replace('<tmp>', tmp) + text;
        let resolved;
        try {
          resolved = await guard.resolve(input);
        } catch (err) {
          assert.ok(isNotesError(err), `only clear errors, got ${String(err)}`);
          assert.match(err.message, /Access denied|A path is required|too long/);
          return;
        }
        assert.ok(resolved.absolute === root || resolved.absolute.startsWith(root + path.sep), resolved.absolute);
        // Act as a careless writer would: create the folders and write through whatever is there.
        try {
          fs.mkdirSync(path.dirname(resolved.absolute), { recursive: true });
          fs.writeFileSync(resolved.absolute, 'written');
        } catch {
          // a folder in the way, a name that is a file: irrelevant to confinement
        }
        const outsideNow = Object.fromEntries(Object.entries(snapshot(tmp)).filter(([p]) => !p.startsWith(root + path.sep)));
        assert.deepEqual(outsideNow, outsideBefore, `writing ${JSON.stringify(input)} changed something outside`);
      }),
      { numRuns: 400 },
    );
  });

  it('accepts every path made only of plain names (no false alarms)', async () => {
    const plain = fc.array(fc.stringMatching(/^[a-zA-Z0-9_-][a-zA-Z0-9_. -]{0,10}$/), { minLength: 1, maxLength: 5 });
    await fc.assert(
      fc.asyncProperty(plain, async (parts) => {
        const names = parts.map((p) => p.trimEnd()).filter((p) => p !== '' && p !== '.' && p !== '..');
        fc.pre(names.length > 0 && !names.some((n) => ['out', 'in', 'dangling', 'chain', 'loop'].includes(n)));
        const got = await guard.resolve(names.join('/'));
        assert.equal(got.relative, path.posix.normalize(names.join('/')));
      }),
      { numRuns: 300 },
    );
  });

  for (const [name, api, wsRoot] of [
    ['POSIX', path.posix, '/home/me/notes'],
    ['Windows', path.win32, 'C:\\Users\\me\\notes'],
  ] as const) {
    it(`keeps every lexically resolved ${name} path under the root`, () => {
      const lead = fc.constantFrom('', '/', '\\', 'C:', 'C:\\', 'D:\\', '\\\\', `${wsRoot}`, `${wsRoot}_evil`, `${wsRoot}\\..\\`);
      fc.assert(
        fc.property(lead, fc.array(segment, { maxLength: 7 }), fc.constantFrom('/', '\\'), (l, parts, sep) => {
          const input = l + parts.join(sep);
          let lexical: string;
          try {
            lexical = resolveLexically([wsRoot], input, api).lexical;
          } catch (err) {
            assert.ok(isNotesError(err));
            return;
          }
          const fold = (s: string) => (api === path.win32 ? s.toLowerCase() : s);
          assert.ok(fold(lexical) === fold(wsRoot) || fold(lexical).startsWith(fold(wsRoot + api.sep)), `${input} -> ${lexical}`);
        }),
        { numRuns: 3000 },
      );
    });
  }
});
