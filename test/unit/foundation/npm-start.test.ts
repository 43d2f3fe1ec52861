// `npm start` on the browser-hosted VS Code server: what a newcomer sees when its port is taken or its runtime
// cannot be installed. Both are reported before anything is built, copied or started.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(__dirname, '../../..');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs test/host/start.mjs --browser with an empty runtime cache whose install always fails (a stand-in npm). */
function runStart(env: Record<string, string>, tmp: string): Promise<Run> {
  const bin = path.join(tmp, 'bin');
  fs.mkdirSync(bin, { recursive: true });
  fs.writeFileSync(path.join(bin, 'npm'), '#!/bin/sh\necho "npm error code ENOTFOUND" >&2\nexit 1\n', { mode: 0o755 });
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, 'test', 'host', 'start.mjs'), '--browser'], {
      cwd: root,
      env: { ...process.env, NOTESAPP_RUNTIME_CACHE: path.join(tmp, 'cache'), PATH: `${bin}${path.delimiter}${process.env.PATH}`, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('npm start (browser-hosted VS Code)', function () {
  let tmp: string;
  let holder: net.Server | undefined;

  before(function () {
    if (process.platform === 'win32') this.skip();
  });
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-start-'));
  });
  afterEach(async () => {
    if (holder) await new Promise((r) => holder!.close(r));
    holder = undefined;
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('says the port is taken and how to choose another when something already listens on PORT', async () => {
    holder = net.createServer();
    await new Promise<void>((r) => holder!.listen(0, '127.0.0.1', r));
    const port = (holder.address() as net.AddressInfo).port;
    const r = await runStart({ PORT: String(port) }, tmp);
    assert.equal(r.code, 1);
    assert.match(r.stderr, new RegExp(`\\[start\\] port ${port} on 127\\.0\\.0\\.1 is already in use, perhaps by another \`npm start\``));
    assert.match(r.stderr, new RegExp(`PORT=${port + 1} npm start`));
    assert.doesNotMatch(r.stdout + r.stderr, /\[build\]|\[runtime\]|EADDRINUSE/);
  });

  it('rejects a PORT that is not a port number', async () => {
    const r = await runStart({ PORT: '80800' }, tmp);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /\[start\] PORT must be a port number from 1 to 65535, got "80800"/);
    assert.doesNotMatch(r.stdout, /\[build\]/);
  });

  it('explains a failed runtime install in a few lines, without a stack trace, and before building', async () => {
    const probe = net.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const r = await runStart({ PORT: String(port) }, tmp);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /\[start\] Installing the extension-host runtime failed: npm install .* exited with 1/);
    assert.match(r.stderr, /It needs the npm registry and Debian packages libkrb5-dev/);
    assert.match(r.stderr, /desktop VS Code's `code` command on PATH/);
    assert.doesNotMatch(r.stderr, /^\s+at /m);
    assert.doesNotMatch(r.stdout, /\[build\]/);
    assert.deepEqual(fs.readdirSync(path.join(tmp, 'cache')), [], 'a failed install leaves nothing in the cache');
  });
});
