// The MCP server lifecycle as a user drives it: start, status, health check, stop, restart, crash.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import * as vscode from 'vscode';
import type { NotesApi } from '../../src/extension';
import type { ServerStatus } from '../../src/vscode/mcp/status';
import { isAlive, notesApi, statusWhere } from './shell-helpers';

describe('shell: MCP server lifecycle', function () {
  this.timeout(60000);
  let api: NotesApi;

  before(async () => {
    api = await notesApi();
    // Auto-start may or may not have run (it follows the config); every test starts from a stopped server.
    await api.stopServer();
  });

  afterEach(async () => {
    const pid = api.serverStatus().pid;
    await api.stopServer();
    if (pid !== null) assert.equal(isAlive(pid), false, `pid ${pid} is reaped after the test`);
  });

  it('start -> running with a live pid -> health check true -> stop -> the pid is gone', async () => {
    const started = await vscode.commands.executeCommand<ServerStatus>('notesapp.startServer');
    assert.equal(started.is_running, true);
    assert.equal(typeof started.pid, 'number');
    const pid = started.pid!;
    assert.equal(isAlive(pid), true, 'the server process is alive');
    assert.match(started.url ?? '', /^stdio:\/\/localhost\/.*dist\/server\.js$/);
    assert.equal(started.last_error, null);
    assert.equal(started.port, 3456, 'the configured default port is reported');

    assert.deepEqual(await vscode.commands.executeCommand('notesapp.serverStatus'), started);
    assert.equal(await vscode.commands.executeCommand('notesapp.healthCheck'), true);
    assert.equal(await api.healthCheck(), true);

    const stopped = await vscode.commands.executeCommand<ServerStatus>('notesapp.stopServer');
    assert.deepEqual(stopped, { is_running: false, port: 3456, pid: null, url: null, last_error: null });
    assert.equal(isAlive(pid), false, 'the server process is gone after stop');
    assert.equal(await vscode.commands.executeCommand('notesapp.healthCheck'), false, 'a stopped server is not healthy');
  });

  it('start with a port reports it; starting again keeps the same process', async () => {
    const first = await api.startServer(4567);
    assert.equal(first.port, 4567);
    const again = await vscode.commands.executeCommand<ServerStatus>('notesapp.startServer', 5678);
    assert.equal(again.pid, first.pid, 'a running server is not started twice');
    assert.equal(again.port, 4567);
  });

  it('restart changes the pid and applies a new port', async () => {
    const first = await api.startServer();
    const restarted = await vscode.commands.executeCommand<ServerStatus>('notesapp.restartServer', 4000);
    assert.equal(restarted.is_running, true);
    assert.notEqual(restarted.pid, first.pid);
    assert.equal(restarted.port, 4000);
    assert.equal(isAlive(first.pid!), false, 'the old process is gone');
    assert.equal(isAlive(restarted.pid!), true);
    assert.equal(await api.healthCheck(), true);
  });

  it('a server killed from outside is reported in last_error, then restarted after a delay', async () => {
    const { pid } = await api.startServer();
    const crashed = statusWhere(api, (s) => !s.is_running && s.last_error !== null, 'the crash to be reported');
    process.kill(pid!, 'SIGKILL');
    const report = await crashed;
    assert.equal(report.pid, null);
    assert.match(report.last_error!, new RegExp(`pid ${pid}\\b.*exited unexpectedly`));

    const recovered = await statusWhere(api, (s) => s.is_running, 'the automatic restart');
    assert.notEqual(recovered.pid, pid);
    assert.match(recovered.last_error ?? '', /exited unexpectedly/, 'the crash stays visible until the user acts');
    assert.equal(await api.healthCheck(), true);
  });

  it('automatic restarts are bounded: after three the server stays stopped with the reason in last_error', async function () {
    this.timeout(90000);
    let { pid } = await api.startServer();
    for (let attempt = 1; attempt <= 3; attempt++) {
      const old = pid!;
      const back = statusWhere(api, (s) => s.is_running && s.pid !== old, `automatic restart ${attempt}`, 30000);
      process.kill(old, 'SIGKILL');
      pid = (await back).pid;
    }
    const gaveUp = statusWhere(api, (s) => !s.is_running && /no automatic restart/.test(s.last_error ?? ''), 'the restart budget to run out');
    process.kill(pid!, 'SIGKILL');
    const final = await gaveUp;
    assert.match(final.last_error!, /already restarted 3 times/);
    assert.equal(final.pid, null);
    const manual = await api.startServer();
    assert.equal(manual.is_running, true, 'a manual start still works and resets the budget');
    assert.equal(manual.last_error, null);
  });

  it('a bad port is refused with a clear error and the server keeps its state', async () => {
    const before = await api.startServer();
    // The command shows the error and returns undefined (a rejection would have VS Code show it a second time); the
    // API rejects with it.
    assert.equal(await vscode.commands.executeCommand('notesapp.restartServer', 'eighty'), undefined);
    await assert.rejects(api.startServer(70000), /port must be a whole number from 1 to 65535/);
    assert.deepEqual(api.serverStatus(), before);
  });

  it('integrations.mcp.enabled false in config.json stops the server, refuses starts and hides it from chat; true starts it again', async () => {
    const configPath = process.env.NOTESAPP_CONFIG_PATH!;
    const original = fs.existsSync(configPath) ? fs.readFileSync(configPath, 'utf8') : undefined;
    const write = (enabled: boolean) => {
      const current: Record<string, unknown> = original ? JSON.parse(original) : {};
      const integrations = (current.integrations ?? {}) as Record<string, unknown>;
      const mcp = (integrations.mcp ?? {}) as Record<string, unknown>;
      fs.writeFileSync(configPath, JSON.stringify({ ...current, integrations: { ...integrations, mcp: { ...mcp, enabled, autoStart: true } } }, null, 2));
    };
    try {
      const { pid } = await api.startServer();
      const stopped = statusWhere(api, (s) => !s.is_running, 'the server to stop when disabled');
      write(false);
      await stopped;
      assert.equal(isAlive(pid!), false);
      await assert.rejects(api.startServer(), /disabled in the configuration \(integrations\.mcp\.enabled is false\)/);
      assert.deepEqual(api.mcpServerDefinitions(), [], 'VS Code chat is offered no server');
      assert.equal(api.serverStatus().is_running, false);

      const restarted = statusWhere(api, (s) => s.is_running, 'auto-start after enabling again');
      write(true);
      assert.equal(isAlive((await restarted).pid!), true);
      assert.equal(api.mcpServerDefinitions().length, 1);
    } finally {
      if (original === undefined) fs.rmSync(configPath, { force: true });
      else fs.writeFileSync(configPath, original);
    }
  });

  it('a save with a syntax error elsewhere keeps integrations.mcp.enabled false: the server stops and stays stopped', async () => {
    const configPath = process.env.NOTESAPP_CONFIG_PATH!;
    const original = fs.existsSync(configPath) ? fs.readFileSync(configPath, 'utf8') : undefined;
    try {
      const { pid } = await api.startServer();
      const stopped = statusWhere(api, (s) => !s.is_running, 'the server to stop when disabled in a file with a syntax error');
      // A comma missing after the integrations section: the file is not JSON, the switch is still readable.
      fs.writeFileSync(configPath, '{\n  "integrations": { "mcp": { "enabled": false, "autoStart": true } }\n  "theme": "dark"\n}\n');
      await stopped;
      assert.equal(isAlive(pid!), false);
      await assert.rejects(api.startServer(), /disabled in the configuration/);
    } finally {
      if (original === undefined) fs.rmSync(configPath, { force: true });
      else fs.writeFileSync(configPath, original);
      // The next test starts servers: wait until the extension has read the file back (a failure shows there).
      for (let tries = 0; tries < 100; tries++) {
        const started = await api.startServer().then(
          () => true,
          (err: Error) => !/disabled in the configuration/.test(err.message),
        );
        if (started) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  });

  it('runs on the Node binary of notesapp.mcp.nodePath; a wrong path is reported in last_error', async () => {
    const settings = vscode.workspace.getConfiguration('notesapp.mcp');
    try {
      await settings.update('nodePath', '/nonexistent/bin/node', vscode.ConfigurationTarget.Global);
      const failed = await api.restartServer();
      assert.equal(failed.is_running, false);
      assert.equal(
        failed.last_error,
        "The MCP server did not start: The notesapp.mcp.nodePath setting names /nonexistent/bin/node, which does not exist: set it to a Node.js binary, or clear it to run the server on VS Code's own runtime.",
      );
      assert.equal(await api.healthCheck(), false);

      // The extension host here runs on plain Node, so its own binary is a real Node for this check.
      await settings.update('nodePath', process.execPath, vscode.ConfigurationTarget.Global);
      const ok = await api.startServer();
      assert.equal(ok.is_running, true, `started: ${ok.last_error}`);
      assert.equal(ok.last_error, null);
      assert.equal(await api.healthCheck(), true);
    } finally {
      await settings.update('nodePath', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('every server command is contributed in the "Notes" category', async () => {
    const ext = vscode.extensions.getExtension('notesapp.notesapp')!;
    const contributed = (ext.packageJSON.contributes.commands as { command: string; category: string }[]).filter((c) => c.category === 'Notes');
    const ids = contributed.map((c) => c.command);
    const registered = await vscode.commands.getCommands(true);
    for (const id of ['startServer', 'stopServer', 'restartServer', 'serverStatus', 'healthCheck', 'getPluginSetting', 'setPluginSetting', 'runTool', 'copyClientConfiguration']) {
      assert.ok(ids.includes(`notesapp.${id}`), `notesapp.${id} is in package.json`);
      assert.ok(registered.includes(`notesapp.${id}`), `notesapp.${id} is registered`);
    }
  });
});
