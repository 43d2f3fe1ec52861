// Resources through a real MCP client: list, templates, read, completion, subscriptions and list_changed.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceListChangedNotificationSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { callOk, startServer, type Harness } from './harness';

function jsonOf(contents: Array<{ text?: unknown; mimeType?: string }>, index = 0): Record<string, unknown> {
  assert.equal(contents[index].mimeType, 'application/json');
  return JSON.parse(String(contents[index].text)) as Record<string, unknown>;
}

async function rejects(client: Client, uri: string, message: RegExp, code: number): Promise<void> {
  await assert.rejects(client.readResource({ uri }), (err: Error & { code?: number }) => {
    assert.match(err.message, message);
    assert.equal(err.code, code);
    return true;
  });
}

/** Plugin settings whose secrets hide under names and shapes no name rule catches. */
const nastySettings = {
  apiKey: 'nasty-api-key',
  credentials: { pass: 'nasty-pass' },
  accessTokens: ['nasty-token-1', 'nasty-token-2'],
  password2: 'nasty-password2',
  privateKeyPem: '-----BEGIN nasty-pem',
  authorization: 'Bearer nasty-bearer',
  clientSecretValue: 'nasty-client-secret',
};
const nastyValues = ['nasty-api-key', 'nasty-pass', 'nasty-token-1', 'nasty-token-2', 'nasty-password2', 'nasty-pem', 'nasty-bearer', 'nasty-client-secret'];

function assertNoSecret(body: unknown): void {
  const text = JSON.stringify(body);
  for (const secret of [...nastyValues, 'sk-secret-value', 'journal']) assert.ok(!text.includes(secret), `${secret} is not shown: ${text}`);
}

describe('MCP resources', () => {
  let h: Harness;
  before(async () => {
    h = await startServer({
      config: {
        theme: 'dark',
        editor: { fontSize: 18 },
        plugins: { enabled: ['daily-notes'], settings: { 'daily-notes': { apiKey: 'sk-secret-value', folder: 'journal', accessToken: 'tok' }, p1: nastySettings } },
      },
    });
  });
  after(async () => h?.close());

  it('resources/list names every note plus the workspace, theme, configuration sections and plugins', async () => {
    const { resources } = await h.client.listResources();
    const uris = resources.map((r) => r.uri);
    for (const uri of [
      'notesapp://notes/index.md',
      'notesapp://notes/projects/Project%20Plan.md',
      'notesapp://workspace/info',
      'notesapp://theme/current',
      'notesapp://config/editor',
      'notesapp://plugins/daily-notes',
    ]) {
      assert.ok(uris.includes(uri), `${uri} listed`);
    }
    assert.equal(resources.find((r) => r.uri === 'notesapp://notes/index.md')?.mimeType, 'text/markdown');
    assert.ok(!uris.some((u) => u.includes('.hidden')), 'hidden notes are not listed');
  });

  it('resources/templates/list gives the note, config and plugin templates', async () => {
    const { resourceTemplates } = await h.client.listResourceTemplates();
    assert.deepEqual(resourceTemplates.map((t) => t.uriTemplate).sort(), ['notesapp://config/{key}', 'notesapp://notes/{+path}', 'notesapp://plugins/{name}']);
  });

  it('reads a note: its markdown text, then its metadata', async () => {
    const { contents } = await h.client.readResource({ uri: 'notesapp://notes/projects/Project%20Plan.md' });
    assert.equal(contents.length, 2);
    assert.deepEqual({ uri: contents[0].uri, mimeType: contents[0].mimeType, text: 'text' in contents[0] ? contents[0].text : undefined }, {
      uri: 'notesapp://notes/projects/Project%20Plan.md',
      mimeType: 'text/markdown',
      text: fs.readFileSync(path.join(h.workspace, 'projects/Project Plan.md'), 'utf8'),
    });
    const meta = jsonOf(contents, 1);
    assert.equal(meta.path, 'projects/Project Plan.md');
    assert.deepEqual(meta.frontmatter, { status: 'active', owner: 'Dana' });
    assert.deepEqual((meta.headings as Array<{ text: string }>).map((x) => x.text), ['Project Plan', 'Goals', 'Research']);
  });

  it('answers a missing note and a path outside the workspace with errors', async () => {
    await rejects(h.client, 'notesapp://notes/missing.md', /Resource not found/, -32002);
    await rejects(h.client, 'notesapp://notes/..%2F..%2Fetc%2Fpasswd', /outside the workspace/, -32602);
  });

  it('reads workspace info', async () => {
    const info = jsonOf((await h.client.readResource({ uri: 'notesapp://workspace/info' })).contents);
    assert.equal(info.path, h.workspace);
    assert.equal(info.noteCount, 6);
    assert.equal(typeof info.size, 'number');
    assert.deepEqual((info.settings as { files: { fileExtension: string } }).files.fileExtension, '.md');
  });

  it('reads configuration values by dotted key, with plugin secrets redacted', async () => {
    assert.deepEqual(jsonOf((await h.client.readResource({ uri: 'notesapp://config/editor.fontSize' })).contents), { key: 'editor.fontSize', value: 18 });
    assert.deepEqual(jsonOf((await h.client.readResource({ uri: 'notesapp://config/integrations.mcp.tools' })).contents), {
      key: 'integrations.mcp.tools',
      value: { fileOperations: true, search: true, editor: true, ai: true },
    });
    const plugins = (await h.client.readResource({ uri: 'notesapp://config/plugins' })).contents;
    assertNoSecret(plugins);
    assert.deepEqual(jsonOf(plugins).value, {
      enabled: ['daily-notes'],
      settings: {
        'daily-notes': { apiKey: '[redacted]', folder: '[redacted]', accessToken: '[redacted]' },
        p1: Object.fromEntries(Object.keys(nastySettings).map((k) => [k, '[redacted]'])),
      },
    });
    for (const key of ['plugins.settings', 'plugins.settings.p1', 'plugins.settings.p1.credentials', 'plugins.settings.p1.accessTokens']) {
      assertNoSecret((await h.client.readResource({ uri: `notesapp://config/${key}` })).contents);
    }
    // Below a plugin setting there is nothing to read: the value was replaced whole.
    await rejects(h.client, 'notesapp://config/plugins.settings.p1.credentials.pass', /Unknown configuration key/, -32602);
    await rejects(h.client, 'notesapp://config/editor.noSuchKey', /Unknown configuration key "editor.noSuchKey"/, -32602);
  });

  it('answers a malformed resource URI with -32602 naming the problem, never an internal error, and keeps serving', async () => {
    await rejects(h.client, 'notesapp://config/%ZZ', /^MCP error -32602: Invalid resource URI notesapp:\/\/config\/%ZZ: "%ZZ" holds a malformed percent-escape\.$/, -32602);
    await rejects(h.client, 'notesapp://plugins/%E0%A4', /malformed percent-escape/, -32602);
    await rejects(h.client, 'not a uri', /^MCP error -32602: Invalid params for resources\/read: uri: "not a uri" is not a valid URI$/, -32602);
    await rejects(h.client, `notesapp://notes/${'a'.repeat(70_000)}.md`, /uri: 70020 characters, over the limit of 65536/, -32602);
    await assert.rejects(h.client.subscribeResource({ uri: 'no uri at all' }), /-32602: Invalid params for resources\/subscribe: uri: "no uri at all" is not a valid URI/);
    // Errors the SDK makes itself carry the code once.
    await rejects(h.client, 'notesapp://nothing/x', /^MCP error -32602: Resource notesapp:\/\/nothing\/x not found$/, -32602);
    assert.equal(jsonOf((await h.client.readResource({ uri: 'notesapp://theme/current' })).contents).theme, 'dark');
  });

  it('reads the current theme', async () => {
    const theme = jsonOf((await h.client.readResource({ uri: 'notesapp://theme/current' })).contents);
    assert.equal(theme.theme, 'dark');
    assert.equal(theme.customTheme, null);
    assert.equal((theme.fonts as { fontSize: number }).fontSize, 18);
  });

  it('reads a plugin: honestly not installed, enabled flag, every setting value redacted', async () => {
    assert.deepEqual(jsonOf((await h.client.readResource({ uri: 'notesapp://plugins/daily-notes' })).contents), {
      name: 'daily-notes',
      installed: false,
      enabled: true,
      status: 'not installed',
      settings: { apiKey: '[redacted]', folder: '[redacted]', accessToken: '[redacted]' },
    });
    const p1 = (await h.client.readResource({ uri: 'notesapp://plugins/p1' })).contents;
    assertNoSecret(p1);
    assert.deepEqual(jsonOf(p1).settings, Object.fromEntries(Object.keys(nastySettings).map((k) => [k, '[redacted]'])));
    assert.equal(jsonOf((await h.client.readResource({ uri: 'notesapp://plugins/other' })).contents).enabled, false);
  });

  it('completes note paths and configuration keys', async () => {
    const notes = await h.client.complete({ ref: { type: 'ref/resource', uri: 'notesapp://notes/{+path}' }, argument: { name: 'path', value: 'proj' } });
    assert.deepEqual(notes.completion.values, ['projects/Project Plan.md']);
    const anywhere = await h.client.complete({ ref: { type: 'ref/resource', uri: 'notesapp://notes/{+path}' }, argument: { name: 'path', value: 'standup' } });
    assert.deepEqual(anywhere.completion.values, ['meetings/2024-03-01 Standup.md']);
    const keys = await h.client.complete({ ref: { type: 'ref/resource', uri: 'notesapp://config/{key}' }, argument: { name: 'key', value: 'editor.font' } });
    assert.deepEqual(keys.completion.values, ['editor.fontSize', 'editor.fontFamily']);
    const pluginKeys = await h.client.complete({ ref: { type: 'ref/resource', uri: 'notesapp://config/{key}' }, argument: { name: 'key', value: 'plugins.settings' } });
    assert.deepEqual(pluginKeys.completion.values, ['plugins.settings', 'plugins.settings.daily-notes', 'plugins.settings.p1']);
  });
});

describe('MCP resource subscriptions', () => {
  let h: Harness;
  before(async () => {
    h = await startServer();
  });
  after(async () => h?.close());

  function next<T>(register: (resolve: (value: T) => void) => void): Promise<T> {
    return new Promise((resolve) => register(resolve));
  }

  it('sends notifications/resources/updated when a subscribed note changes on disk', async () => {
    const uri = 'notesapp://notes/ideas.md';
    await h.client.subscribeResource({ uri });
    const updated = next<string>((resolve) => h.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => resolve(n.params.uri)));
    fs.appendFileSync(path.join(h.workspace, 'ideas.md'), '\nChanged by another program.\n');
    assert.equal(await updated, uri);
    await h.client.unsubscribeResource({ uri });
  });

  it('sends notifications/resources/list_changed when another program creates a note, and when a tool deletes one', async () => {
    const created = next<void>((resolve) => h.client.setNotificationHandler(ResourceListChangedNotificationSchema, () => resolve()));
    fs.writeFileSync(path.join(h.workspace, 'journal', 'external.md'), '# From elsewhere\n');
    await created;
    const deleted = next<void>((resolve) => h.client.setNotificationHandler(ResourceListChangedNotificationSchema, () => resolve()));
    await callOk(h.client, 'delete_file', { path: 'journal/external.md' });
    await deleted;
    const { resources } = await h.client.listResources();
    assert.ok(!resources.some((r) => r.uri.endsWith('external.md')));
  });
});

describe('MCP list_changed without a file watcher', () => {
  it('still tells the client when a tool creates a note (files.watchForChanges: false)', async () => {
    const h = await startServer({ config: { files: { watchForChanges: false } } });
    try {
      const changed = new Promise<void>((resolve) => h.client.setNotificationHandler(ResourceListChangedNotificationSchema, () => resolve()));
      await callOk(h.client, 'create_note', { title: 'Fresh', content: 'x' });
      await changed;
      assert.ok((await h.client.listResources()).resources.some((r) => r.uri === 'notesapp://notes/Fresh.md'));
    } finally {
      await h.close();
    }
  });
});
