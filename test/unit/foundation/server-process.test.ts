// The built server starts as its own process, answers initialize with its identity, and pings over real stdio.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pkg from '../../../package.json';

const serverJs = path.resolve(__dirname, '../../../dist/server.js');

describe('dist/server.js over stdio', () => {
  let dir: string;
  let client: Client;

  before(async () => {
    assert.ok(fs.existsSync(serverJs), 'dist/server.js is built (npm run build)');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-ping-'));
    client = new Client({ name: 'ping-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [serverJs, '--workspace', dir, '--config', path.join(dir, 'no-config.json')],
        stderr: 'pipe',
      }),
    );
  });

  after(async () => {
    await client?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers initialize with the server name and version', () => {
    assert.deepEqual(
      { name: client.getServerVersion()?.name, version: client.getServerVersion()?.version },
      { name: 'notesapp', version: pkg.version },
    );
  });

  it('answers ping', async () => {
    assert.deepEqual(await client.ping(), {});
  });

  it('refuses a workspace folder that does not exist, with a message and a non-zero status', () => {
    const missing = path.join(dir, 'missing');
    const r = spawnSync(process.execPath, [serverJs, '--workspace', missing], { encoding: 'utf8', input: '' });
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /workspace folder not found/);
    assert.equal(r.stdout, '', 'nothing but protocol messages on stdout');
  });

  describe('the workspace folder it is given', () => {
    const run = (args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) =>
      spawnSync(process.execPath, [serverJs, ...args], { encoding: 'utf8', input: '', cwd: options.cwd, env: { ...process.env, ...options.env } });
    const configWith = (defaultPath: string) => {
      const file = path.join(dir, `config-${Math.random().toString(36).slice(2)}.json`);
      fs.writeFileSync(file, JSON.stringify({ workspace: { defaultPath } }));
      return file;
    };

    it('refuses a workspace.defaultPath that is not absolute instead of serving that name under its current folder', () => {
      fs.mkdirSync(path.join(dir, 'Notes'), { recursive: true });
      for (const defaultPath of ['Notes', '~/Notes']) {
        const config = configWith(defaultPath);
        const r = run(['--config', config], { cwd: dir, env: { NOTESAPP_WORKSPACE: '' } });
        assert.equal(r.status, 1, r.stderr);
        assert.ok(
          r.stderr.includes(`notesapp-mcp: workspace.defaultPath "${defaultPath}" in ${config} is not an absolute path (it is taken as written; a leading ~ is not expanded)`),
          r.stderr,
        );
        assert.doesNotMatch(r.stderr, /serving/);
      }
    });

    it('serves an absolute workspace.defaultPath, an empty NOTESAPP_WORKSPACE counting as unset', () => {
      const notes = fs.mkdtempSync(path.join(dir, 'notes-'));
      const r = run(['--config', configWith(notes)], { cwd: os.tmpdir(), env: { NOTESAPP_WORKSPACE: '' } });
      assert.equal(r.status, 0, r.stderr);
      assert.ok(r.stderr.includes(`serving ${notes} over stdio`), r.stderr);
    });

    it('refuses a file given as the workspace, saying it is not a folder', () => {
      const file = path.join(dir, 'a-note.md');
      fs.writeFileSync(file, '# a note\n');
      const r = run(['--workspace', file, '--config', configWith('')]);
      assert.equal(r.status, 1);
      assert.ok(r.stderr.includes(`notesapp-mcp: the workspace ${file} is not a folder`), r.stderr);
    });

    it('refuses an empty --workspace with usage instead of serving its current folder', () => {
      const r = run(['--workspace', '', '--config', configWith('')], { cwd: dir });
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, /--workspace needs a folder, got an empty value[\s\S]*Usage: notesapp-mcp/);
      assert.doesNotMatch(r.stderr, /serving/);
    });

    it('refuses an empty --config with usage instead of reading its current folder and serving on the defaults', () => {
      const r = run(['--workspace', dir, '--config', ''], { cwd: dir });
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, /^notesapp-mcp: --config needs a file, got an empty value\n\nUsage: notesapp-mcp/);
      assert.doesNotMatch(r.stderr, /serving|EISDIR/);
    });
  });

  it('exits soon after its client goes away, with a workspace index retired by a settings change still pending', async function () {
    this.timeout(30_000);
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-exit-'));
    const config = path.join(ws, '..', `${path.basename(ws)}-config.json`);
    try {
      fs.mkdirSync(path.join(ws, 'skip'));
      for (let i = 0; i < 20; i++) fs.writeFileSync(path.join(ws, i % 5 ? `n${i}.md` : `skip/n${i}.md`), `note ${i} kyoto\n`);
      fs.writeFileSync(config, '{}');
      const { LineClient } = await import('../../bench/line-client.mjs');
      const client = await LineClient.start(process.execPath, [serverJs, '--workspace', ws, '--config', config]);
      const { child } = client;
      const exited = new Promise<number>((resolve) => child.on('exit', () => resolve(Date.now())));
      // search_files and list_files answer JSON in their one text block.
      const call = async (name: string) => {
        const result = (await client.request('tools/call', { name, arguments: name === 'search_files' ? { query: 'kyoto' } : {} })) as { content: Array<{ text: string }> };
        return JSON.parse(result.content[0].text) as { files?: string[]; count?: number };
      };
      assert.equal((await call('search_files')).count, 20);
      // An index setting changes: the server builds a new index and keeps the old one for a while (120 s).
      fs.writeFileSync(config, JSON.stringify({ files: { excludePatterns: ['**/skip/**'] } }));
      const deadline = Date.now() + 10_000;
      let listed: string[] | undefined;
      do {
        await new Promise((resolve) => setTimeout(resolve, 100));
        listed = (await call('list_files')).files;
      } while (listed?.some((f) => f.startsWith('skip/')) && Date.now() < deadline);
      assert.equal(listed?.length, 16, 'the new exclude pattern is in force');
      const closedAt = Date.now();
      child.stdin.end();
      const exitedAt = await Promise.race([exited, new Promise<number>((resolve) => setTimeout(() => resolve(-1), 10_000))]);
      if (exitedAt < 0) child.kill('SIGKILL');
      assert.ok(exitedAt >= 0, 'the server was still running 10 s after its client closed stdin');
      assert.ok(exitedAt - closedAt < 5_000, `exited ${exitedAt - closedAt} ms after stdin closed`);
    } finally {
      fs.rmSync(ws, { recursive: true, force: true });
      fs.rmSync(config, { force: true });
    }
  });

  it('rejects an unknown flag with usage on stderr', () => {
    const r = spawnSync(process.execPath, [serverJs, '--bogus'], { encoding: 'utf8', input: '' });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /Usage: notesapp-mcp/);
  });
});
