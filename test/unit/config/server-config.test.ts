// The MCP server reads config.json through loadConfigFile: old files migrated and broken fields defaulted, in memory only.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ResourceListChangedNotificationSchema, ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { ConfigStore } from '../../../src/core/config/store';
import { callOk } from '../server/harness';
import { tempConfigDir } from './helpers';

const serverJs = path.resolve(__dirname, '../../../dist/server.js');

async function withServer<T>(configFile: string, workspace: string, fn: (client: Client, stderr: () => string) => Promise<T>): Promise<T> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [serverJs, '--workspace', workspace, '--config', configFile], stderr: 'pipe' });
  let err = '';
  transport.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const client = new Client({ name: 'config-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    return await fn(client, () => err);
  } finally {
    await client.close();
  }
}

async function configValue(client: Client, key: string): Promise<unknown> {
  const result = await client.readResource({ uri: `notesapp://config/${key}` });
  const first = result.contents[0];
  assert.ok(first && 'text' in first);
  return (JSON.parse(String(first.text)) as { value: unknown }).value;
}

describe('the MCP server reads the configuration like the extension', () => {
  let tmp: ReturnType<typeof tempConfigDir>;
  before(() => assert.ok(fs.existsSync(serverJs), 'dist/server.js is built (npm run build)'));
  beforeEach(() => (tmp = tempConfigDir()));
  afterEach(() => tmp.cleanup());

  it('migrates an old flat file in memory, logs it, and writes nothing', async () => {
    const text = JSON.stringify({ version: '0.9.0', fontSize: 18, fileExtension: '.txt', mcp: { port: 4567 } });
    fs.writeFileSync(tmp.file, text);
    await withServer(tmp.file, tmp.dir, async (client, stderr) => {
      assert.equal(await configValue(client, 'editor.fontSize'), 18);
      assert.equal(await configValue(client, 'files.fileExtension'), '.txt');
      assert.equal(await configValue(client, 'integrations.mcp.port'), 4567);
      // What moved where, as the extension logs it when it migrates the file on disk.
      assert.match(stderr(), /older version; migrated in memory \(the file is not changed\): migrated 0\.9\.0 -> 1\.0\.0; fontSize -> editor\.fontSize; .*migrated 1\.0\.0 -> 1\.1\.0; mcp -> integrations\.mcp/);
    });
    fs.writeFileSync(tmp.file, JSON.stringify({ version: 'abc', theme: 'dark' }));
    await withServer(tmp.file, tmp.dir, async (_client, stderr) => {
      assert.match(stderr(), /migrated in memory \(the file is not changed\): version "abc" is not of the form major\.minor\.patch: read as older than every version/);
    });
    fs.writeFileSync(tmp.file, text);
    assert.equal(fs.readFileSync(tmp.file, 'utf8'), text);
    assert.deepEqual(fs.readdirSync(tmp.dir), ['config.json']);
  });

  it('starts on the defaults from a file that is not JSON, and says so', async () => {
    fs.writeFileSync(tmp.file, '{ "theme": "dark" "editor": { "fontSize": 20 } }');
    await withServer(tmp.file, tmp.dir, async (client, stderr) => {
      assert.equal(await configValue(client, 'editor.fontSize'), 16);
      assert.match(stderr(), /Configuration .* cannot be used; the server starts on the defaults:\n {2}not valid JSON: CommaExpected at line 1, column 19/);
    });
  });

  it('logs a file it cannot read once, not again when its watch first reads it', async () => {
    fs.mkdirSync(tmp.file); // a folder where the file should be
    await withServer(tmp.file, tmp.dir, async (client, stderr) => {
      assert.equal(await configValue(client, 'editor.fontSize'), 16);
      // The watch reads the file once it stands (after 100 ms of quiet), and again at its first status check.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.equal(stderr().match(/EISDIR/g)?.length, 1, stderr());
    });
  });

  it('defaults only the invalid fields of a partly invalid file and says which on stderr', async () => {
    fs.writeFileSync(tmp.file, JSON.stringify({ version: '1.1.0', theme: 'dark', editor: { fontSize: 99, lineHeight: 2 } }));
    await withServer(tmp.file, tmp.dir, async (client, stderr) => {
      assert.equal(await configValue(client, 'editor.fontSize'), 16);
      assert.equal(await configValue(client, 'editor.lineHeight'), 2);
      assert.equal(await configValue(client, 'theme'), 'dark');
      assert.match(stderr(), /editor\.fontSize: .*32/);
    });
    assert.deepEqual(fs.readdirSync(tmp.dir), ['config.json'], 'the server makes no backup; the extension does');
  });
});

describe('the MCP server and NOTESAPP_CONFIG_PATH', () => {
  it('refuses a relative NOTESAPP_CONFIG_PATH with a usage message and exit status 2, no stack trace', () => {
    const tmp = tempConfigDir();
    try {
      const r = spawnSync(process.execPath, [serverJs, '--workspace', tmp.dir], {
        encoding: 'utf8',
        input: '',
        env: { ...process.env, HOME: tmp.dir, NOTESAPP_CONFIG_PATH: 'relative/config.json' },
      });
      assert.equal(r.status, 2);
      assert.match(r.stderr, /^notesapp-mcp: NOTESAPP_CONFIG_PATH must be an absolute path to a config file, got "relative\/config\.json"\n\nUsage: notesapp-mcp/);
      assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
      assert.equal(r.stdout, '');
    } finally {
      tmp.cleanup();
    }
  });
});

describe('a running MCP server follows changes of its config file', function () {
  this.timeout(30_000);
  let tmp: ReturnType<typeof tempConfigDir>;
  let client: Client;
  let stderr = '';
  const stderrEvents = new EventEmitter();

  /** Resolves when stderr shows `pattern` (a bound keeps a failure from hanging the suite). */
  const stderrShows = (pattern: RegExp, ms = 10_000): Promise<void> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`stderr did not show ${pattern}:\n${stderr}`)), ms);
      const check = (): void => {
        if (!pattern.test(stderr)) return;
        clearTimeout(timer);
        stderrEvents.off('data', check);
        resolve();
      };
      stderrEvents.on('data', check);
      check();
    });

  beforeEach(async () => {
    tmp = tempConfigDir();
    stderr = '';
    fs.writeFileSync(tmp.file, '{\n  // written by hand\n  "version": "1.1.0",\n  "security": { "maxFileSize": 100000 }\n}\n');
    fs.mkdirSync(path.join(tmp.dir, 'ws'));
    fs.writeFileSync(path.join(tmp.dir, 'ws', 'big.md'), 'x'.repeat(5000));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [serverJs, '--workspace', path.join(tmp.dir, 'ws'), '--config', tmp.file],
      env: { ...process.env, HOME: tmp.dir } as Record<string, string>,
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      stderrEvents.emit('data');
    });
    client = new Client({ name: 'live-config-test', version: '1.0.0' });
    await client.connect(transport);
  });
  afterEach(async () => {
    await client.close();
    tmp.cleanup();
  });

  it('applies a new security.maxFileSize to the next call, without a restart', async () => {
    const before = await client.callTool({ name: 'read_file', arguments: { path: 'big.md' } });
    assert.notEqual(before.isError, true, JSON.stringify(before));
    await new ConfigStore({ file: tmp.file }).updateConfig({ security: { maxFileSize: 1000 } });
    await stderrShows(/Configuration .* changed; the new values apply from the next request/);
    const after = await client.callTool({ name: 'read_file', arguments: { path: 'big.md' } });
    assert.equal(after.isError, true);
    assert.match(JSON.stringify(after.content), /5000 bytes, over the limit of 1000 bytes \(security\.maxFileSize\)/);
  });

  it('applies new search settings to the next search, and describes them in tools/list with one tools/list_changed', async () => {
    fs.writeFileSync(path.join(tmp.dir, 'ws', 'n.md'), 'Needle one\nneedles two\nneedle three\n');
    const lines = async (query: string) => {
      const s = await callOk<{ results: Array<{ line: number }>; truncated: boolean }>(client, 'search_files', { query });
      return { lines: s.results.map((x) => x.line), truncated: s.truncated };
    };
    assert.deepEqual(await lines('needle'), { lines: [1, 2, 3], truncated: false });
    const changed: string[] = [];
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      changed.push('tools');
    });
    await new ConfigStore({ file: tmp.file }).updateConfig({ search: { maxResults: 1, caseSensitive: true, wholeWord: true, useRegex: true } });
    await stderrShows(/changed; the new values apply from the next request/);
    assert.deepEqual(await lines('needle'), { lines: [3], truncated: false }, 'case-sensitive whole words');
    assert.deepEqual(await lines('n.edle'), { lines: [3], truncated: false }, 'a regular expression, by default');
    assert.deepEqual(await lines('[Nn]eedles?'), { lines: [1], truncated: true }, 'at most one result');
    const tool = (await client.listTools()).tools.find((t) => t.name === 'search_files');
    assert.match(tool?.description ?? '', /At most 1 results \(search\.maxResults\).*Whole-word matching is on/);
    const args = tool?.inputSchema.properties as Record<string, { description?: string }>;
    assert.match(args.case_sensitive.description ?? '', /default true/);
    assert.match(args.regex.description ?? '', /default true/);
    assert.deepEqual(changed, ['tools'], 'one notification, before the tools/list answer that followed it');
  });

  it('switching a tool category off and on in the file changes tools/list and notifies the client', async () => {
    const changed: string[] = [];
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      changed.push('tools');
    });
    const names = async (): Promise<string[]> => (await client.listTools()).tools.map((t) => t.name);
    assert.ok((await names()).includes('search_files'));
    await new ConfigStore({ file: tmp.file }).updateConfig({ integrations: { mcp: { tools: { search: false } } } });
    await stderrShows(/changed; the new values apply from the next request/);
    assert.equal((await names()).includes('search_files'), false, 'search_files left tools/list');
    await assert.rejects(client.callTool({ name: 'search_files', arguments: { query: 'x' } }), (err: Error & { code?: number }) => {
      assert.equal(err.code, -32602);
      assert.match(err.message, /Tool search_files is disabled: integrations\.mcp\.tools\.search is false/);
      return true;
    });
    assert.ok(changed.length >= 1, 'tools/list_changed was sent');
    stderr = '';
    await new ConfigStore({ file: tmp.file }).updateConfig({ integrations: { mcp: { tools: { search: true } } } });
    await stderrShows(/changed; the new values apply from the next request/);
    assert.ok((await names()).includes('search_files'), 'search_files is back');
    assert.ok((await names()).includes('read_file'), 'other categories were untouched');
  });

  it('sends one tools/list_changed for a category of many tools switched off', async () => {
    const changed: string[] = [];
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      changed.push('tools');
    });
    const before = (await client.listTools()).tools.length;
    await new ConfigStore({ file: tmp.file }).updateConfig({ integrations: { mcp: { tools: { fileOperations: false } } } });
    await stderrShows(/changed; the new values apply from the next request/);
    const after = (await client.listTools()).tools.length;
    assert.ok(before - after >= 5, `${before - after} tools left tools/list`);
    // The notification was written before the tools/list answer that followed it.
    assert.deepEqual(changed, ['tools']);
  });

  it('a save with a syntax error elsewhere does not turn back on a tool category the file turns off', async () => {
    const names = async (): Promise<string[]> => (await client.listTools()).tools.map((t) => t.name);
    await new ConfigStore({ file: tmp.file }).updateConfig({ integrations: { mcp: { tools: { fileOperations: false } } } });
    await stderrShows(/changed; the new values apply from the next request/);
    assert.equal((await names()).includes('delete_file'), false);
    stderr = '';
    // Half-way through typing a new key: the comma after it is still missing.
    fs.writeFileSync(tmp.file, '{\n  "integrations": { "mcp": { "tools": { "fileOperations": false } } },\n  "theme": "dark"\n  "ui": {}\n}\n');
    await stderrShows(/not valid JSON: CommaExpected .*what the file turns off stays off: integrations\.mcp\.tools\.fileOperations/);
    const listed = await names();
    assert.equal(listed.includes('delete_file'), false, 'delete_file stays out of tools/list');
    assert.ok(listed.includes('search_files'), 'the other categories stay on');
    assert.equal(await configValue(client, 'security.maxFileSize'), 100000, 'the other settings are the ones the server had');
  });

  it('keeps the settings it had while the file cannot be used (a save with a syntax error), says so, and follows the file again once it reads', async () => {
    await new ConfigStore({ file: tmp.file }).updateConfig({ security: { maxFileSize: 1000 }, files: { excludePatterns: ['**/private/**'] } });
    await stderrShows(/changed; the new values apply from the next request/);
    fs.mkdirSync(path.join(tmp.dir, 'ws', 'private'));
    fs.writeFileSync(path.join(tmp.dir, 'ws', 'private', 'diary.md'), '# Diary\n');
    const listed = async (): Promise<string> => JSON.stringify(await callOk(client, 'list_files'));
    assert.doesNotMatch(await listed(), /diary/);
    stderr = '';
    // Half-way through typing a new key: the comma after it is still missing.
    fs.writeFileSync(tmp.file, '{\n  "security": { "maxFileSize": 1000 },\n  "files": { "excludePatterns": ["**/private/**"] }\n  "theme": "dark"\n}\n');
    await stderrShows(/cannot be used \(CommaExpected .*\); the server keeps the settings it had until the file can be read again/);
    // The store's own line says only that nothing of the file is used: no claim of defaults the server does not take.
    assert.match(stderr, /is invalid; nothing of it is used until it is fixed:\n {2}not valid JSON: CommaExpected/);
    assert.doesNotMatch(stderr, /replaced by defaults|defaults used/);
    assert.equal(await configValue(client, 'security.maxFileSize'), 1000);
    const big = await client.callTool({ name: 'read_file', arguments: { path: 'big.md' } });
    assert.equal(big.isError, true, 'the file size limit still holds');
    assert.doesNotMatch(await listed(), /diary/, 'the excluded folder stays out of the listing');
    stderr = '';
    fs.writeFileSync(tmp.file, '{\n  "security": { "maxFileSize": 100000 },\n  "theme": "dark"\n}\n');
    await stderrShows(/changed; the new values apply from the next request/);
    assert.equal(await configValue(client, 'theme'), 'dark');
    assert.notEqual((await client.callTool({ name: 'read_file', arguments: { path: 'big.md' } })).isError, true);
  });

  /**
   * Subscribes to `uris`, then records every resource notification from there on. Notifications the server may have
   * sent at start (the note set checked after the handshake) are let pass first.
   */
  async function recordResourceNotifications(uris: string[]): Promise<string[]> {
    for (const uri of uris) await client.subscribeResource({ uri });
    await client.listResources();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const seen: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (n) => {
      seen.push(`updated ${n.params.uri}`);
    });
    client.setNotificationHandler(ResourceListChangedNotificationSchema, async () => {
      seen.push('list_changed');
    });
    return seen;
  }

  const waitUntil = async (what: string, done: () => boolean, ms = 10_000): Promise<void> => {
    for (const end = Date.now() + ms; !done(); ) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  it('tells subscribers of configuration, theme, plugin and workspace resources that changed, once each, and sends one list_changed', async () => {
    fs.mkdirSync(path.join(tmp.dir, 'ws', 'archive'));
    fs.writeFileSync(path.join(tmp.dir, 'ws', 'archive', 'old.md'), '# Old\n');
    const uris = ['notesapp://config/editor.fontSize', 'notesapp://theme/current', 'notesapp://workspace/info', 'notesapp://plugins/foo', 'notesapp://config/search', 'notesapp://config/editor.lineHeight'];
    const seen = await recordResourceNotifications(uris);
    assert.ok((await client.listResources()).resources.some((r) => r.uri === 'notesapp://notes/archive/old.md'));
    await new ConfigStore({ file: tmp.file }).updateConfig({
      theme: 'dark',
      editor: { fontSize: 20 },
      plugins: { enabled: ['foo'] },
      files: { excludePatterns: ['**/node_modules/**', '**/.git/**', '**/archive/**'] },
    });
    await stderrShows(/changed; the new values apply from the next request/);
    await waitUntil('list_changed and workspace/info updated', () => seen.includes('list_changed') && seen.includes('updated notesapp://workspace/info'));
    await new Promise((resolve) => setTimeout(resolve, 500)); // no more may follow
    assert.deepEqual([...seen].sort(), [
      'list_changed',
      'updated notesapp://config/editor.fontSize',
      'updated notesapp://plugins/foo',
      'updated notesapp://theme/current',
      'updated notesapp://workspace/info',
    ]);
    // What the notifications announced is what a read and the list now give.
    assert.equal(await configValue(client, 'editor.fontSize'), 20);
    const [themeBody] = (await client.readResource({ uri: 'notesapp://theme/current' })).contents;
    assert.ok(themeBody && 'text' in themeBody);
    assert.equal((JSON.parse(themeBody.text) as { theme: string }).theme, 'dark');
    const listed = (await client.listResources()).resources.map((r) => r.uri);
    assert.ok(listed.includes('notesapp://plugins/foo'));
    assert.ok(!listed.includes('notesapp://notes/archive/old.md'));
  });

  it('sends nothing for a configuration change no subscribed resource and not the resource list shows', async () => {
    const seen = await recordResourceNotifications(['notesapp://config/editor.fontSize', 'notesapp://theme/current', 'notesapp://notes/big.md']);
    await new ConfigStore({ file: tmp.file }).updateConfig({ security: { maxFileSize: 200000 }, ui: { sidebarWidth: 300 } });
    await stderrShows(/changed; the new values apply from the next request/);
    await new Promise((resolve) => setTimeout(resolve, 800));
    assert.deepEqual(seen, []);
    // A subscription to the theme still hears of a change of it, and only it.
    await new ConfigStore({ file: tmp.file }).updateConfig({ editor: { lineHeight: 2 } });
    await waitUntil('theme updated', () => seen.length > 0);
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.deepEqual(seen, ['updated notesapp://theme/current']);
  });

  it('reports an invalid edit on stderr and writes nothing beside the file (the extension makes the backups)', async () => {
    const invalid = '{ "version": "1.1.0", "security": { "maxFileSize": -5 } }';
    fs.writeFileSync(tmp.file, invalid);
    await stderrShows(/security\.maxFileSize: /);
    assert.equal(fs.readFileSync(tmp.file, 'utf8'), invalid);
    assert.deepEqual(fs.readdirSync(tmp.dir).filter((n) => n.startsWith('config.json.')), [], 'no backup, no lock file');
  });
});
