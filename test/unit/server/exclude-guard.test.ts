// files.excludePatterns guard writes and deletes: any excluded folder on the way counts, whatever the patterns.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FileAccess } from '../../../src/core/workspace/file-access';
import { PathGuard } from '../../../src/core/workspace/path-guard';
import { callError, callOk, startServer } from './harness';

describe('files.excludePatterns guard', () => {
  it('refuses writes and deletes below a folder excluded by non-default patterns, as list_files hides them', async () => {
    const h = await startServer({ config: { files: { excludePatterns: ['**/.git', 'drafts', 'areas/health'] }, security: { validateFileTypes: false } } });
    try {
      for (const f of ['.git/hooks/ok', 'drafts/secret.md', 'areas/health/blood.md']) {
        fs.mkdirSync(path.dirname(path.join(h.workspace, f)), { recursive: true });
        fs.writeFileSync(path.join(h.workspace, f), 'kept');
      }
      const listed = (await callOk<{ files: string[] }>(h.client, 'list_files')).files;
      assert.ok(!listed.some((f) => f.startsWith('.git/') || f.startsWith('drafts/') || f.startsWith('areas/health/')), 'list_files hides them');
      assert.match(await callError(h.client, 'write_file', { path: '.git/hooks/pre-commit', content: '#!/bin/sh\n' }), /matches files\.excludePatterns \(\*\*\/\.git\)/);
      assert.match(await callError(h.client, 'write_file', { path: 'drafts/new.md', content: 'x' }), /\(drafts\)/);
      assert.match(await callError(h.client, 'create_file', { path: 'areas/health/new.md', content: 'x' }), /\(areas\/health\)/);
      assert.match(await callError(h.client, 'delete_file', { path: 'drafts/secret.md' }), /excluded files cannot be written or deleted/);
      assert.match(await callError(h.client, 'delete_file', { path: 'areas/health/blood.md' }), /excluded files cannot be written or deleted/);
      assert.equal(fs.existsSync(path.join(h.workspace, '.git/hooks/pre-commit')), false);
      assert.equal(fs.existsSync(path.join(h.workspace, 'drafts/new.md')), false);
      assert.equal(fs.existsSync(path.join(h.workspace, 'areas/health/new.md')), false);
      assert.equal(fs.readFileSync(path.join(h.workspace, 'drafts/secret.md'), 'utf8'), 'kept');
      assert.equal(fs.readFileSync(path.join(h.workspace, 'areas/health/blood.md'), 'utf8'), 'kept');
      // Neighbours that only share a prefix stay writable.
      await callOk(h.client, 'write_file', { path: 'drafts-old/ok.md', content: 'x' });
      await callOk(h.client, 'write_file', { path: 'areas/healthy.md', content: 'x' });
    } finally {
      await h.close();
    }
  });

  it('ignores case where the file system does (a .GIT folder is the .git folder on macOS and Windows)', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-exclude-'));
    try {
      const guard = await PathGuard.create(root);
      const limits = { maxFileSize: 1024, validateFileTypes: true, fileExtension: '.md', excludePatterns: ['**/.git/**', '**/node_modules/**'] };
      const insensitive = new FileAccess(guard, { ...limits, caseInsensitivePaths: true });
      await assert.rejects(insensitive.write('.GIT/hooks/pre-commit.txt', 'x', { exclusive: false }), /matches files\.excludePatterns/);
      await assert.rejects(insensitive.write('Node_Modules/pkg/readme.md', 'x', { exclusive: false }), /matches files\.excludePatterns/);
      assert.equal(fs.existsSync(path.join(root, '.GIT')), false);
      const sensitive = new FileAccess(guard, { ...limits, caseInsensitivePaths: false });
      await sensitive.write('.GIT/notes.md', 'x', { exclusive: false });
      assert.equal(fs.readFileSync(path.join(root, '.GIT/notes.md'), 'utf8'), 'x');
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
  it('refuses writes and deletes that reach an excluded folder through a symbolic link, and changes nothing there', async () => {
    const h = await startServer({ config: { security: { validateFileTypes: false } } });
    try {
      const git = path.join(h.workspace, '.git');
      fs.mkdirSync(path.join(git, 'hooks'), { recursive: true });
      fs.writeFileSync(path.join(git, 'HEAD'), 'ref: refs/heads/main\n');
      fs.mkdirSync(path.join(h.workspace, 'node_modules', 'pkg'), { recursive: true });
      fs.writeFileSync(path.join(h.workspace, 'node_modules', 'pkg', 'package.json'), '{}');
      fs.symlinkSync('.git', path.join(h.workspace, 'gitlink'));
      fs.symlinkSync('node_modules', path.join(h.workspace, 'nm'));
      fs.symlinkSync('.git/HEAD', path.join(h.workspace, 'head.md'));
      const refused = /leads through a symbolic link to "(\.git|node_modules)\/[^"]*", which matches files\.excludePatterns/;
      assert.match(await callError(h.client, 'write_file', { path: 'gitlink/hooks/pre-commit', content: '#!/bin/sh\n' }), refused);
      assert.match(await callError(h.client, 'create_file', { path: 'gitlink/notes.md', content: 'x' }), refused);
      assert.match(await callError(h.client, 'delete_file', { path: 'gitlink/HEAD' }), refused);
      assert.match(await callError(h.client, 'write_file', { path: 'nm/pkg/package.json', content: 'x' }), refused);
      assert.match(await callError(h.client, 'write_file', { path: 'head.md', content: 'x' }), refused);
      assert.match(await callError(h.client, 'update_note_metadata', { path: 'head.md', metadata: { a: 1 } }), refused);
      assert.match(await callError(h.client, 'create_note', { title: 'Hook', folder: 'gitlink/hooks' }), refused);
      assert.deepEqual(fs.readdirSync(path.join(git, 'hooks')), []);
      assert.deepEqual(fs.readdirSync(git).sort(), ['HEAD', 'hooks']);
      assert.equal(fs.readFileSync(path.join(git, 'HEAD'), 'utf8'), 'ref: refs/heads/main\n');
      assert.equal(fs.readFileSync(path.join(h.workspace, 'node_modules', 'pkg', 'package.json'), 'utf8'), '{}');
      // The link itself is not excluded: deleting it removes the link, not what it leads to.
      await callOk(h.client, 'delete_file', { path: 'head.md' });
      assert.equal(fs.existsSync(path.join(h.workspace, 'head.md')), false);
      assert.equal(fs.readFileSync(path.join(git, 'HEAD'), 'utf8'), 'ref: refs/heads/main\n');
    } finally {
      await h.close();
    }
  });
});

describe('exclude patterns the glob compiler refuses', () => {
  it('an empty or over-long pattern is reported and its field takes its default, and the server keeps serving', async function () {
    this.timeout(60_000);
    const h = await startServer({ config: { files: { excludePatterns: ['', 'drafts/**'] }, search: { excludePatterns: ['x'.repeat(70_000)] } } });
    try {
      fs.mkdirSync(path.join(h.workspace, 'node_modules', 'pkg'), { recursive: true });
      fs.writeFileSync(path.join(h.workspace, 'node_modules', 'pkg', 'readme.md'), 'needle in a package');
      fs.mkdirSync(path.join(h.workspace, 'drafts'), { recursive: true });
      fs.writeFileSync(path.join(h.workspace, 'drafts', 'draft.md'), 'needle in a draft');
      // Each field is the default as a whole: node_modules is left out, and drafts (the bad array's good item) is not.
      const listed = (await callOk<{ files: string[] }>(h.client, 'list_files')).files;
      assert.ok(listed.includes('drafts/draft.md') && !listed.some((f) => f.startsWith('node_modules/')), listed.join(', '));
      const found = await callOk<{ results: Array<{ file: string }> }>(h.client, 'search_files', { query: 'needle' });
      assert.deepEqual(found.results.map((r) => r.file), ['drafts/draft.md']);
      assert.match(await callError(h.client, 'write_file', { path: 'node_modules/pkg/x.md', content: 'x' }), /matches files\.excludePatterns \(\*\*\/node_modules\/\*\*\)/);
      assert.match(h.stderr(), /files\.excludePatterns.*an exclude pattern must not be empty/);
      assert.match(h.stderr(), /search\.excludePatterns.*an exclude pattern must be at most 4096 characters/);
      // Idle past the warm-up the server does after its start, then saved with an empty pattern while it runs.
      await new Promise((resolve) => setTimeout(resolve, 3500));
      fs.writeFileSync(h.configPath, JSON.stringify({ files: { excludePatterns: [''] } }));
      await new Promise((resolve) => setTimeout(resolve, 2500));
      assert.ok((await callOk<{ files: string[] }>(h.client, 'list_files')).files.includes('drafts/draft.md'));
      assert.equal((await callOk<{ results: unknown[] }>(h.client, 'search_files', { query: 'needle' })).results.length, 1);
    } finally {
      await h.close();
    }
  });
});
