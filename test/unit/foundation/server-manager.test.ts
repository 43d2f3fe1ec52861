// The extension's server manager on the built server (dist/server.js), as the status record reports it.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type * as vscodeTypes from 'vscode';
import { ServerManager } from '../../../src/vscode/mcp/server-manager';
import type { LaunchOptions } from '../../../src/vscode/mcp/server-process';
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
});
