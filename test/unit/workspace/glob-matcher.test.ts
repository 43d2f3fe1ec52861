// The exclude globs are tested with picomatch's own regular expressions, without its matcher's per-call work: the
// answers must be picomatch's, for every kind of pattern users write.
import * as assert from 'node:assert/strict';
import picomatch from 'picomatch';
import { compileGlobs, createPathFilter, GLOB_OPTIONS, globMatcher } from '../../../src/core/workspace/listing';

const PATTERNS = [
  '**/node_modules/**',
  '**/.git/**',
  '**/.DS_Store',
  'archive/**',
  '**/*.log',
  '*.tmp',
  'drafts',
  'drafts/',
  '**/draft?.md',
  '**/[Tt]emp/**',
  '**/*.{png,jpg}',
  'journal/202[0-3]-*.md',
  '!keep.md',
  '**/@(a|b)/*.md',
  '**/+(x|y)z.md',
  'notes/**/secret*',
  'Ünïcode/**',
  'a b/c d.md',
  '**',
  '.*',
  'notes/[draft].md',
  // Matches itself only by picomatch's equality test: its expression reads the parentheses as a group.
  'notes/a(b).md',
  // Plain globs (a path lacking their longest run skips the expression), and globs near them that are not plain.
  'node_modules/**',
  '**/node_modules',
  './drafts/**',
  './a.md',
  './b',
  '**/../b.md',
  'x/**/n.md',
  '**/notes-*/**',
  '"quoted".md',
  'a|b.md',
  'a$b.md',
  '~/x.md',
  // picomatch's expression for a glob with three stars leaves a dot unescaped: it matches any character.
  '***/a.b.md',
  '***a.',
];

const PATHS = [
  '', 'a', 'a/', 'node_modules', 'node_modules/', 'node_modules/x.md', 'a/node_modules/b/c.md', 'a/node_modules',
  '.git', '.git/', '.git/HEAD', 'sub/.git/config', '.DS_Store', 'x/.DS_Store', 'x/.DS_Store/y', 'archive', 'archive/',
  'archive/old.md', 'notes/archive/old.md', 'debug.log', 'a/b/debug.log', 'log', 'x.tmp', 'a/x.tmp', 'drafts',
  'drafts/', 'drafts/one.md', 'a/drafts', 'draft1.md', 'a/draft2.md', 'a/draft10.md', 'Temp/x', 'a/temp/b/c',
  'a/TEMP/b', 'img.png', 'a/b/pic.jpg', 'a/b/pic.jpeg', 'journal/2021-01-01.md', 'journal/2024-01-01.md', 'keep.md',
  'other.md', 'x/a/n.md', 'x/b/n.md', 'x/c/n.md', 'a/b/n.md', 'xz.md', 'q/xyz.md', 'q/xxz.md', 'notes/secret.md',
  'notes/deep/er/secret-2.md', 'notes/public.md', 'Ünïcode/é.md', 'Unicode/e.md', 'a b/c d.md', 'a b/c  d.md',
  '.hidden', '.hidden/x.md', 'x/.hidden', 'a/../b.md', './a.md', 'a//b.md', 'a/./b.md', '**', '*.tmp', 'drafts/**',
  'notes/[draft].md', 'notes/d.md', 'notes/x.md', 'notes/a(b).md', 'notes/ab.md', 'quoted.md', '"quoted".md',
  'a|b.md', 'a.md', 'b.md', 'a$b.md', '~/x.md', 'x.md', 'notes-1/a.md', 'notes-/b', 'x/n.md', 'x/y/z/n.md', '../b.md', 'b', 'x/b',
  'x/aXb.md', 'x/a.b.md', 'aa',
];

describe('exclude globs', () => {
  it("answer exactly as picomatch's matcher for every pattern and path, each pattern alone and all together", () => {
    let matched = 0;
    for (const pattern of PATTERNS) {
      const reference = picomatch(pattern, GLOB_OPTIONS);
      const fast = globMatcher(compileGlobs([pattern]));
      for (const p of PATHS) {
        assert.equal(fast(p), reference(p), `${JSON.stringify(pattern)} on ${JSON.stringify(p)}`);
        if (reference(p)) matched++;
      }
    }
    const all = picomatch(PATTERNS, GLOB_OPTIONS);
    const fastAll = globMatcher(compileGlobs(PATTERNS));
    for (const p of PATHS) assert.equal(fastAll(p), all(p), `all patterns on ${JSON.stringify(p)}`);
    assert.ok(matched > 100, `the cases match often enough to mean something (${matched})`);
  });

  it('read a leading "!" and extglobs as plain characters, as VS Code\'s files.exclude does', () => {
    const matches = (pattern: string, p: string) => globMatcher(compileGlobs([pattern]))(p);
    // picomatch's default would read this as "every file but keep.md".
    assert.equal(matches('!keep.md', 'other.md'), false);
    assert.equal(matches('!keep.md', 'keep.md'), false);
    assert.equal(matches('!keep.md', '!keep.md'), true);
    assert.equal(matches('**/+(x|y)z.md', 'a/xz.md'), false);
    assert.equal(matches('**/@(a|b)/*.md', 'x/a/n.md'), false);
    // What VS Code's globs have still works.
    assert.equal(matches('**/*.{png,jpg}', 'a/b.jpg'), true);
    assert.equal(matches('**/[Tt]emp/**', 'x/Temp/y.md'), true);
    assert.equal(matches('**/draft?.md', 'x/draft1.md'), true);
  });

  it('refuse a pattern picomatch refuses, as before', () => {
    assert.throws(() => compileGlobs(['']), /non-empty string/);
    assert.throws(() => createPathFilter({ excludePatterns: [''], showHiddenFiles: false }), /non-empty string/);
  });
});
