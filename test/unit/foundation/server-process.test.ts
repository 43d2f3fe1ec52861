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

  it('rejects an unknown flag with usage on stderr', () => {
    const r = spawnSync(process.execPath, [serverJs, '--bogus'], { encoding: 'utf8', input: '' });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /Usage: notesapp-mcp/);
  });
});
