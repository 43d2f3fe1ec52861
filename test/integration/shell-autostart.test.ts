// Auto-start (spec 3): with integrations.mcp.enabled and autoStart true, the server starts by itself.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import { isAlive, notesApi, statusWhere } from './shell-helpers';

function configPath(): string {
  const p = process.env.NOTESAPP_CONFIG_PATH;
  if (!p) throw new Error('the runner gives the host NOTESAPP_CONFIG_PATH');
  return p;
}

function readConfig(): Record<string, unknown> {
  return fs.existsSync(configPath()) ? (JSON.parse(fs.readFileSync(configPath(), 'utf8')) as Record<string, unknown>) : {};
}

/** Writes integrations.mcp.{enabled, autoStart} into the host's config file, keeping everything else. */
function setMcp(enabled: boolean, autoStart: boolean): void {
  const config = readConfig();
  const integrations = (config.integrations ?? {}) as Record<string, unknown>;
  const mcp = (integrations.mcp ?? {}) as Record<string, unknown>;
  fs.writeFileSync(configPath(), `${JSON.stringify({ ...config, integrations: { ...integrations, mcp: { ...mcp, enabled, autoStart } } }, null, 2)}\n`);
}

describe('shell: MCP server auto-start', function () {
  this.timeout(60000);

  it('a fresh configuration (enabled and autoStart default to true) has the server running', async () => {
    const mcp = (readConfig() as { integrations?: { mcp?: { enabled?: boolean; autoStart?: boolean } } }).integrations?.mcp;
    assert.notEqual(mcp?.autoStart, false, 'the host config leaves autoStart at its default');
    const api = await notesApi();
    const status = await statusWhere(api, (s) => s.is_running, 'the auto-started server');
    assert.equal(isAlive(status.pid!), true);
    assert.equal(await api.healthCheck(), true);
  });

  // Independent of what earlier tests did to the server: the configuration alone stops and starts it.
  it('turning integrations.mcp.enabled off stops the server, and on again (autoStart) starts it without a command', async () => {
    const api = await notesApi();
    const before = fs.existsSync(configPath()) ? fs.readFileSync(configPath()) : undefined;
    try {
      if (!api.serverStatus().is_running) await api.startServer();
      setMcp(false, true);
      await statusWhere(api, (s) => !s.is_running, 'the server stopped by enabled: false');
      setMcp(true, true);
      const status = await statusWhere(api, (s) => s.is_running, 'the server auto-started by enabled: true');
      assert.equal(isAlive(status.pid!), true);
      assert.equal(await api.healthCheck(), true);
    } finally {
      if (before) fs.writeFileSync(configPath(), before);
    }
  });
});
