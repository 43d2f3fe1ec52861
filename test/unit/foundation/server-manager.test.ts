// The extension's server manager on the built server (dist/server.js), as the status record reports it.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type * as vscodeTypes from 'vscode';
import { ServerManager } from '../../../src/vscode/mcp/server-manager';
import type { LaunchOptions } from '../../../src/vscode/mcp/server-process';
import type { ServerStatus } from '../../../src/vscode/mcp/status';
import { fakeLog } from '../fake-vscode';

const serverScript = path.resolve(__dirname, '../../../dist/server.js');

describe('extension: the MCP server manager', () => {
  let dir: string;
  let manager: ServerManager;
  let configuredPort: number;
  let launch: () => LaunchOptions;

  beforeEach(() => {
    assert.ok(fs.existsSync(serverScript), 'dist/server.js is built (npm run build)');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-manager-'));
    const notes = path.join(dir, 'notes');
    fs.mkdirSync(notes);
    configuredPort = 4000;
    launch = () => ({ serverScript, workspaceFolder: notes, configPath: path.join(dir, 'config.json'), nodePath: process.execPath, bridge: undefined });
    manager = new ServerManager({
      launch: () => launch(),
      configuredPort: () => configuredPort,
      log: fakeLog() as unknown as vscodeTypes.LogOutputChannel,
      notify: () => undefined,
      clientVersion: '0',
    });
  });
  afterEach(async () => {
    await manager.shutdownForDeactivate();
    manager.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reports the port a running server was started with, not one configured since; stopped, the configured one', async function () {
    this.timeout(30_000);
    const started = await manager.start();
    assert.equal(started.is_running, true, String(started.last_error));
    assert.equal(started.port, 4000);
    configuredPort = 5000; // integrations.mcp.port edited while the server runs: read only at the next start
    assert.equal(manager.status().port, 4000);
    assert.equal((await manager.start()).port, 4000, 'starting a running server changes nothing');
    const stopped = await manager.stop();
    assert.equal(stopped.is_running, false);
    assert.equal(stopped.port, 5000);
    const restarted = await manager.restart();
    assert.equal(restarted.port, 5000);
    configuredPort = 6000;
    assert.equal(manager.status().port, 5000);
    const given = await manager.restart(7000);
    assert.equal(given.port, 7000, 'a port given to restart is the running one');
    configuredPort = 8000;
    assert.equal(manager.status().port, 7000);
  });

  it('does not restart a crashed server once there is no notes folder: it would serve its working folder, the extension', async function () {
    this.timeout(30_000);
    const started = await manager.start();
    assert.equal(started.is_running, true, String(started.last_error));
    const folder = launch().workspaceFolder;
    // The notes folder goes during the restart's wait (workspace.defaultPath cleared in a window with none open).
    const withFolder = launch;
    launch = () => ({ ...withFolder(), workspaceFolder: undefined });
    const settled = new Promise<void>((resolve) => {
      const sub = manager.onDidChangeStatus((s) => {
        if (!s.is_running && /did not start: there is no notes folder/.test(String(s.last_error))) {
          sub.dispose();
          resolve();
        }
      });
    });
    process.kill(started.pid as number, 'SIGKILL');
    await settled;
    assert.equal(manager.status().is_running, false);
    assert.ok(folder, 'it had one');
  });

  it('disposed while the server starts (VS Code not waiting for deactivate): the server process is ended all the same', async function () {
    this.timeout(30_000);
    // The built server behind a wrapper that says which process it is.
    const pidFile = path.join(dir, 'server.pid');
    const wrapper = path.join(dir, 'pid-server.cjs');
    fs.writeFileSync(wrapper, `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));\nrequire(${JSON.stringify(serverScript)});\n`);
    const real = launch;
    launch = () => {
      // Read as the start begins: the extension is disposed while the server is being started.
      setImmediate(() => manager.dispose());
      return { ...real(), serverScript: wrapper };
    };
    const status = await manager.start();
    assert.equal(status.is_running, false);
    assert.equal(status.pid, null);
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, `the server process ${pid} is gone`);
  });

  describe('a server that exits unexpectedly', () => {
    // The built server behind a wrapper that logs an ordinary info line first and dies of an uncaught error on SIGUSR2.
    beforeEach(() => {
      const wrapper = path.join(dir, 'crashing-server.cjs');
      fs.writeFileSync(
        wrapper,
        [
          `process.stderr.write('2026-01-01T00:00:00.000Z [info] index: 1 folders watched in 1 ms\\n');`,
          `process.on('SIGUSR2', () => setTimeout(() => { throw new Error('notes index exploded'); }));`,
          `require(${JSON.stringify(serverScript)});`,
        ].join('\n'),
      );
      const real = launch;
      launch = () => ({ ...real(), serverScript: wrapper });
    });
    const crashed = () =>
      new Promise<ServerStatus>((resolve) => {
        const sub = manager.onDidChangeStatus((s) => {
          if (s.is_running || !s.last_error) return;
          sub.dispose();
          resolve(s);
        });
      });

    it("says what the uncaught error was, not Node's version line after its stack", async function () {
      if (process.platform === 'win32') this.skip();
      this.timeout(30_000);
      const { pid, last_error } = await manager.start();
      assert.ok(pid, String(last_error));
      const report = crashed();
      process.kill(pid, 'SIGUSR2');
      assert.equal((await report).last_error, `The MCP server (pid ${pid}) exited unexpectedly: Error: notes index exploded`);
    });

    it('gives no reason rather than an ordinary log line when it had none to say', async function () {
      this.timeout(30_000);
      const { pid, last_error } = await manager.start();
      assert.ok(pid, String(last_error));
      const report = crashed();
      process.kill(pid, 'SIGKILL');
      assert.equal((await report).last_error, `The MCP server (pid ${pid}) exited unexpectedly`);
    });
  });
});
