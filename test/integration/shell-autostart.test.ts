// Auto-start (spec 3): with integrations.mcp.enabled and autoStart true, activation starts the server by itself.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import { isAlive, notesApi, statusWhere } from './shell-helpers';

describe('shell: MCP server auto-start', function () {
  this.timeout(60000);

  it('a fresh configuration (enabled and autoStart default to true) starts the server on activation', async () => {
    const configPath = process.env.NOTESAPP_CONFIG_PATH!;
    const config: unknown = fs.existsSync(configPath) ? JSON.parse(fs.readFileSync(configPath, 'utf8')) : {};
    const mcp = (config as { integrations?: { mcp?: { enabled?: boolean; autoStart?: boolean } } }).integrations?.mcp;
    assert.notEqual(mcp?.autoStart, false, 'the host config leaves autoStart at its default');
    const api = await notesApi();
    const status = await statusWhere(api, (s) => s.is_running, 'the auto-started server');
    assert.equal(isAlive(status.pid!), true);
    assert.equal(await api.healthCheck(), true);
  });
});
