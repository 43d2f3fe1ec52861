// Exhaustive cases for the workspace path guard: traversal, prefix collisions, NUL bytes, symlinks, Windows paths.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isNotesError } from '../../../src/core/errors';
import { isInside, PathGuard, resolveLexically } from '../../../src/core/workspace/path-guard';

async function rejects(guard: PathGuard, input: string, pattern: RegExp): Promise<void> {
  await assert.rejects(guard.resolve(input), (err: unknown) => {
    assert.ok(isNotesError(err), `expected a NotesError for ${JSON.stringify(input)}, got ${String(err)}`);
    assert.match(err.message, pattern);
    return true;
  });
}

describe('PathGuard', () => {
  let tmp: string;
  let root: string;
  let evil: string;
  let guard: PathGuard;

  beforeEach(async () => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'notes-guard-')));
    root = path.join(tmp, 'allowed');
    evil = path.join(tmp, 'allowed_evil');
    fs.mkdirSync(path.join(root, 'sub'), { recursive: true });
    fs.mkdirSync(evil);
    fs.writeFileSync(path.join(root, 'note.md'), 'inside');
    fs.writeFileSync(path.join(root, 'sub', 'deep.md'), 'deep');
    fs.writeFileSync(path.join(evil, 'secret.txt'), 'secret');
    guard = await PathGuard.create(root);
  });

  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  describe('paths inside the workspace', () => {
    const cases: Array<[string, string]> = [
      ['note.md', 'note.md'],
      ['./note.md', 'note.md'],
      ['sub/deep.md', 'sub/deep.md'],
      ['sub\\deep.md', 'sub/deep.md'],
      ['sub/../note.md', 'note.md'],
      ['sub/./deep.md', 'sub/deep.md'],
      ['new/folder/file.md', 'new/folder/file.md'],
      ['..hidden.md', '..hidden.md'],
      ['sub/..deeper/x.md', 'sub/..deeper/x.md'],
      ['.', ''],
      ['sub/..', ''],
    ];
    for (const [input, relative] of cases) {
      it(`accepts ${JSON.stringify(input)} as "${relative}"`, async () => {
        const got = await guard.resolve(input);
        assert.equal(got.relative, relative);
        assert.equal(got.absolute, relative ? path.join(root, ...relative.split('/')) : root);
      });
    }

    it('accepts an absolute path inside the workspace', async () => {
      const got = await guard.resolve(path.join(root, 'sub', 'deep.md'));
      assert.equal(got.relative, 'sub/deep.md');
    });

    it('accepts a path through a symlink that stays inside', async () => {
      fs.symlinkSync(path.join(root, 'sub'), path.join(root, 'alias'));
      const got = await guard.resolve('alias/deep.md');
      assert.equal(got.relative, 'alias/deep.md');
    });

    it('resolves a path of many missing folders under many existing ones in a few steps, and refuses one the system cannot open', async () => {
      // One realpath call per missing folder, each walking every folder above it again, took minutes here.
      const existing = Array.from({ length: 1000 }, () => 'd').join('/');
      fs.mkdirSync(path.join(root, existing), { recursive: true });
      const fits = `${existing}/${Array.from({ length: 500 }, () => 'n').join('/')}/x.md`;
      assert.equal((await guard.resolve(fits)).real, path.join(root, fits));
      if (process.platform === 'linux') {
        const deep = `${existing}/${Array.from({ length: 3000 }, () => 'n').join('/')}/x.md`;
        await rejects(guard, deep, /is too long for the file system/);
      }
    }).timeout(60_000);

    it('accepts a dangling symlink whose target would be inside', async () => {
      fs.symlinkSync(path.join(root, 'later.md'), path.join(root, 'to-later.md'));
      assert.equal((await guard.resolve('to-later.md')).relative, 'to-later.md');
    });

    it('accepts a workspace opened through a symlink, by either name', async () => {
      const alias = path.join(tmp, 'alias-root');
      fs.symlinkSync(root, alias);
      const viaAlias = await PathGuard.create(alias);
      assert.equal((await viaAlias.resolve(path.join(alias, 'note.md'))).absolute, path.join(root, 'note.md'));
      assert.equal((await viaAlias.resolve(path.join(root, 'note.md'))).absolute, path.join(root, 'note.md'));
      await rejects(viaAlias, path.join(evil, 'secret.txt'), /outside the workspace/);
    });

    it('gives relative paths back in POSIX form', async () => {
      assert.equal(guard.toRelative(path.join(root, 'sub', 'deep.md')), 'sub/deep.md');
    });
  });

  describe('traversal', () => {
    const attempts = [
      '..',
      '../',
      '../allowed_evil/secret.txt',
      'sub/../../allowed_evil/secret.txt',
      '..\\allowed_evil\\secret.txt',
      'sub\\..\\..\\x.md',
      './../x.md',
      'sub/../../../../../../etc/passwd',
      '/etc/passwd',
      '/',
    ];
    for (const input of attempts) {
      it(`rejects ${JSON.stringify(input)}`, () => rejects(guard, input, /Access denied: .* is outside the workspace/));
    }
  });

  describe('prefix collisions (CVE-2025-53110)', () => {
    it('rejects the sibling folder whose name starts with the workspace name', async () => {
      await rejects(guard, evil, /outside the workspace/);
      await rejects(guard, path.join(evil, 'secret.txt'), /outside the workspace/);
      await rejects(guard, `${root}_evil/new.md`, /outside the workspace/);
      await rejects(guard, `${root}evil`, /outside the workspace/);
    });

    it('isInside compares whole segments', () => {
      assert.equal(isInside('/allowed', '/allowed_evil', path.posix), false);
      assert.equal(isInside('/allowed', '/allowed/x', path.posix), true);
      assert.equal(isInside('/allowed', '/allowed', path.posix), true);
      assert.equal(isInside('/allowed', '/allowed/..x', path.posix), true);
      assert.equal(isInside('/allowed', '/', path.posix), false);
    });
  });

  describe('NUL bytes and empty paths', () => {
    for (const input of ['note.md\0.txt', '\0', 'sub/\0/x', '../\0']) {
      it(`rejects ${JSON.stringify(input)}`, () => rejects(guard, input, /NUL byte/));
    }
    for (const input of ['', '   ']) {
      it(`rejects the empty path ${JSON.stringify(input)}`, () => rejects(guard, input, /A path is required/));
    }
    it('rejects a non-string path', () => rejects(guard, 42 as unknown as string, /A path is required/));
  });

  describe('symlinks (CVE-2025-53109)', () => {
    it('rejects a file symlink that points outside', async () => {
      fs.symlinkSync(path.join(evil, 'secret.txt'), path.join(root, 'link.txt'));
      await rejects(guard, 'link.txt', /outside the workspace \(it leads through a symbolic link\)/);
    });

    it('rejects a new file below a folder symlink that points outside', async () => {
      fs.symlinkSync(evil, path.join(root, 'out'));
      await rejects(guard, 'out/secret.txt', /symbolic link/);
      await rejects(guard, 'out/new/deeper.md', /symbolic link/);
    });

    it('rejects a dangling symlink whose target would be outside', async () => {
      fs.symlinkSync(path.join(evil, 'created-later.md'), path.join(root, 'dangling.md'));
      await rejects(guard, 'dangling.md', /symbolic link/);
    });

    it('rejects a chain of dangling symlinks that ends outside', async () => {
      fs.symlinkSync(path.join(root, 'hop2'), path.join(root, 'hop1'));
      fs.symlinkSync(path.join(evil, 'nowhere', 'x'), path.join(root, 'hop2'));
      await rejects(guard, 'hop1', /symbolic link/);
      await rejects(guard, 'hop1/child.md', /symbolic link/);
    });

    it('rejects a relative symlink that climbs out', async () => {
      fs.symlinkSync('../allowed_evil', path.join(root, 'rel-out'));
      await rejects(guard, 'rel-out/secret.txt', /symbolic link/);
    });

    it('reads a dangling relative link reached through a folder link from the folder the link is really in', async () => {
      // other/pending.md -> ../later.md, and sub/peer -> ../other: "sub/peer/pending.md" is other/pending.md, which
      // leads to later.md, not to sub/later.md.
      fs.mkdirSync(path.join(root, 'other'));
      fs.symlinkSync('../later.md', path.join(root, 'other', 'pending.md'));
      fs.symlinkSync('../other', path.join(root, 'sub', 'peer'));
      assert.equal((await guard.resolve('sub/peer/pending.md')).real, path.join(root, 'later.md'));
      // The same "../../" that stays in the workspace from sub/peer leaves it from other/.
      fs.symlinkSync('../../allowed_evil/new.md', path.join(root, 'other', 'away.md'));
      await rejects(guard, 'sub/peer/away.md', /outside the workspace \(it leads through a symbolic link\)/);
    });

    it('rejects a symlink loop with a clear error', async () => {
      fs.symlinkSync(path.join(root, 'loop-b'), path.join(root, 'loop-a'));
      fs.symlinkSync(path.join(root, 'loop-a'), path.join(root, 'loop-b'));
      await rejects(guard, 'loop-a', /symbolic link/);
      await rejects(guard, 'loop-a/x.md', /symbolic link/);
    });

    it('rejects a symlink to the root of the file system', async () => {
      fs.symlinkSync('/', path.join(root, 'slash'));
      await rejects(guard, 'slash/etc/passwd', /symbolic link/);
    });

    it('leaves everything outside untouched while checking', async () => {
      fs.symlinkSync(path.join(evil, 'made-by-guard.md'), path.join(root, 'dangling.md'));
      await rejects(guard, 'dangling.md', /symbolic link/);
      assert.deepEqual(fs.readdirSync(evil), ['secret.txt']);
      assert.equal(fs.readFileSync(path.join(evil, 'secret.txt'), 'utf8'), 'secret');
    });
  });

  describe('other failures', () => {
    it('refuses a workspace that does not exist', async () => {
      await assert.rejects(PathGuard.create(path.join(tmp, 'missing')), /does not exist/);
    });

    it('refuses a workspace that is a file', async () => {
      await assert.rejects(PathGuard.create(path.join(root, 'note.md')), /not a folder/);
    });

    it('rejects a path too long for the file system with a clear error', async () => {
      await rejects(guard, `${'a'.repeat(300)}/x.md`, /too long/);
    });

    it('quotes a path of megabytes by its first 32 768 characters only, inside the workspace or outside', async () => {
      const huge = `${'b'.repeat(1_000_000)}.md`;
      for (const input of [huge, `../${huge}`]) {
        await assert.rejects(guard.resolve(input), (err: unknown) => {
          assert.ok(isNotesError(err));
          assert.match(err.message, input === huge ? /^"b{32768}…" is too long for the file system/ : /^Access denied: "\.\.\/b{32765}…" is outside the workspace/);
          assert.ok(err.message.length < 33_000, `${err.message.length} characters`);
          return true;
        });
      }
      // A path over what the file system takes, but of a length a path can have, is quoted whole.
      const long = Array.from({ length: 30 }, () => 'c'.repeat(250)).join('/');
      await rejects(guard, long, new RegExp(`^"${long}" is too long`));
    });
  });
});

describe('resolveLexically with Windows paths', () => {
  const root = 'C:\\Users\\me\\Notes';
  const win = (input: string) => resolveLexically([root], input, path.win32);

  const inside: Array<[string, string]> = [
    ['a.md', 'C:\\Users\\me\\Notes\\a.md'],
    ['sub/a.md', 'C:\\Users\\me\\Notes\\sub\\a.md'],
    ['sub\\a.md', 'C:\\Users\\me\\Notes\\sub\\a.md'],
    ['C:\\Users\\me\\Notes\\a.md', 'C:\\Users\\me\\Notes\\a.md'],
    ['c:\\users\\ME\\notes\\a.md', 'c:\\users\\ME\\notes\\a.md'],
    ['C:/Users/me/Notes/sub/x.md', 'C:\\Users\\me\\Notes\\sub\\x.md'],
    ['sub\\..\\a.md', 'C:\\Users\\me\\Notes\\a.md'],
    ['..a.md', 'C:\\Users\\me\\Notes\\..a.md'],
  ];
  for (const [input, lexical] of inside) {
    it(`accepts ${JSON.stringify(input)}`, () => assert.equal(win(input).lexical, lexical));
  }

  const denied: Array<[string, RegExp]> = [
    ['..\\a.md', /outside the workspace/],
    ['sub\\..\\..\\a.md', /outside the workspace/],
    ['C:\\Users\\me\\Notes_evil\\a.md', /outside the workspace/],
    ['C:\\Users\\me\\NotesX', /outside the workspace/],
    ['D:\\Users\\me\\Notes\\a.md', /outside the workspace/],
    ['C:\\Windows\\win.ini', /outside the workspace/],
    ['C:a.md', /relative to a drive/],
    ['\\Users\\me\\Notes\\a.md', /current drive/],
    ['\\\\?\\C:\\Users\\me\\Notes\\a.md', /device or network/],
    ['\\\\.\\PhysicalDrive0', /device or network/],
    ['\\\\server\\share\\a.md', /device or network/],
    ['//server/share/a.md', /device or network/],
    ['a.md:secret', /alternate data stream/],
    ['sub\\a.md::$DATA', /alternate data stream/],
    ['CON', /reserved device name/],
    ['nul.txt', /reserved device name/],
    ['sub\\Aux.md', /reserved device name/],
    ['COM1 .md', /reserved device name/],
    ['...\\a.md', /dots and spaces/],
    ['.. \\a.md', /dots and spaces/],
    ['a.md\0', /NUL byte/],
  ];
  for (const [input, pattern] of denied) {
    it(`rejects ${JSON.stringify(input)}`, () => {
      assert.throws(() => win(input), (err: unknown) => isNotesError(err) && pattern.test(err.message));
    });
  }

  it('compares drives and folders case-insensitively', () => {
    assert.equal(isInside('C:\\Notes', 'c:\\NOTES\\x', path.win32), true);
    assert.equal(isInside('C:\\Notes', 'C:\\Notes_evil', path.win32), false);
    assert.equal(isInside('C:\\Notes', 'D:\\Notes', path.win32), false);
  });
});
