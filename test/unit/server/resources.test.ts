// Resources through a real MCP client: list, templates, read, completion, subscriptions and list_changed.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceListChangedNotificationSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigStore } from '../../../src/core/config/store';
import { callOk, copyFixture, startServer, type Harness } from './harness';

function jsonOf(contents: Array<{ text?: unknown; mimeType?: string }>, index = 0): Record<string, unknown> {
  assert.equal(contents[index].mimeType, 'application/json');
  return JSON.parse(String(contents[index].text)) as Record<string, unknown>;
}

async function rejects(client: Client, uri: string, message: RegExp, code: number): Promise<void> {
  await assert.rejects(client.readResource({ uri }), (err: Error & { code?: number; data?: { details?: unknown } }) => {
    assert.match(err.message, message);
    assert.equal(err.code, code);
    // README: every error's data has a details string.
    assert.equal(typeof err.data?.details, 'string', JSON.stringify(err.data));
    assert.ok(err.message.endsWith(err.data?.details as string), 'details is the message');
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
    // A key that does not exist is a resource that does not exist: MCP's -32002.
    await rejects(h.client, 'notesapp://config/plugins.settings.p1.credentials.pass', /Resource not found: .*Unknown configuration key/, -32002);
    await rejects(h.client, 'notesapp://config/editor.noSuchKey', /^MCP error -32002: Resource not found: notesapp:\/\/config\/editor\.noSuchKey\. Unknown configuration key "editor\.noSuchKey"; top-level keys: .*editor/, -32002);
  });

  it('answers a malformed resource URI with -32602 naming the problem, never an internal error, and keeps serving', async () => {
    await rejects(h.client, 'notesapp://config/%ZZ', /^MCP error -32602: Invalid resource URI notesapp:\/\/config\/%ZZ: "%ZZ" holds a malformed percent-escape\.$/, -32602);
    await rejects(h.client, 'notesapp://plugins/%E0%A4', /malformed percent-escape/, -32602);
    await rejects(h.client, 'not a uri', /^MCP error -32602: Invalid params for resources\/read: uri: "not a uri" is not a valid URI$/, -32602);
    await rejects(h.client, `notesapp://notes/${'a'.repeat(70_000)}.md`, /uri: 70020 characters, over the limit of 65536/, -32602);
    await assert.rejects(h.client.subscribeResource({ uri: 'no uri at all' }), /-32602: Invalid params for resources\/subscribe: uri: "no uri at all" is not a valid URI/);
    // Subscribing is refused as reading is: a subscription that cannot be read would break every later change.
    await assert.rejects(h.client.subscribeResource({ uri: 'notesapp://plugins/%E0' }), /-32602: Invalid resource URI notesapp:\/\/plugins\/%E0: "%E0" holds a malformed percent-escape/);
    // A note's URI too, even where a file is named so: listed, that file's "%" is written "%25".
    fs.writeFileSync(path.join(h.workspace, '%ZZ.md'), 'named with a percent sign\n');
    for (const uri of ['notesapp://notes/%ZZ.md', 'notesapp://notes/a%', 'notesapp://notes/%FF.md']) {
      const raw = uri.slice('notesapp://notes/'.length);
      const message = new RegExp(`^MCP error -32602: Invalid resource URI ${uri.replace(/[/.]/g, '\\$&')}: "${raw.replace(/\./g, '\\.')}" holds a malformed percent-escape\\.$`);
      await rejects(h.client, uri, message, -32602);
      const thrown = new RegExp(message.source.replace(/^\^/, ''));
      await assert.rejects(h.client.subscribeResource({ uri }), thrown);
      await assert.rejects(h.client.unsubscribeResource({ uri }), thrown);
    }
    const named = (await h.client.readResource({ uri: 'notesapp://notes/%25ZZ.md' })).contents[0];
    assert.equal('text' in named && named.text, 'named with a percent sign\n');
    fs.rmSync(path.join(h.workspace, '%ZZ.md'));
    assert.equal(jsonOf((await h.client.readResource({ uri: 'notesapp://theme/current' })).contents).theme, 'dark');
  });

  it('answers a configuration key of 30 000 dots with -32002 at once (keys that exist are tried, not the ways to cut it)', async function () {
    // Trying every way to cut it took about 7 s on the protocol thread; the test's own timeout is the bound.
    this.timeout(5_000);
    await rejects(h.client, `notesapp://config/${'a.'.repeat(30_000)}a`, /Unknown configuration key/, -32002);
    assert.equal(jsonOf((await h.client.readResource({ uri: 'notesapp://config/editor.fontSize' })).contents).value, 18);
  });

  it('answers a URI that is none of its resources with -32002 naming the ones it has, and keeps serving', async () => {
    for (const uri of ['notesapp://nothing/x', 'file:///etc/passwd', 'notesapp://workspace/other', 'notesapp://notes']) {
      await rejects(h.client, uri, new RegExp(`^MCP error -32002: Resource not found: ${uri.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\. This server's resources: notesapp://notes/\\{path\\}, `), -32002);
    }
    assert.equal(jsonOf((await h.client.readResource({ uri: 'notesapp://workspace/info' })).contents).noteCount, 6);
  });

  it('subscribes to configuration keys that exist, and answers -32002 for one that does not', async () => {
    assert.deepEqual(await h.client.subscribeResource({ uri: 'notesapp://config/editor.fontSize' }), {});
    await assert.rejects(h.client.subscribeResource({ uri: 'notesapp://config/nope' }), (err: Error & { code?: number }) => {
      assert.equal(err.code, -32002);
      assert.match(err.message, /Resource not found: notesapp:\/\/config\/nope\. Unknown configuration key "nope"/);
      return true;
    });
    await h.client.unsubscribeResource({ uri: 'notesapp://config/editor.fontSize' });
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

describe('MCP resources of a plugin whose name holds dots', () => {
  let h: Harness;
  before(async () => {
    h = await startServer({ config: { plugins: { enabled: ['acme.sync'], settings: { 'acme.sync': { token: 'dotted-secret', remote: { url: 'x' } } } } } });
  });
  after(async () => h?.close());

  it('completes its settings key once, reads it redacted, and reads the plugin', async () => {
    const keys = await h.client.complete({ ref: { type: 'ref/resource', uri: 'notesapp://config/{key}' }, argument: { name: 'key', value: 'plugins.settings.acme' } });
    assert.deepEqual(keys.completion.values, ['plugins.settings.acme.sync']);
    for (const key of keys.completion.values) {
      const body = jsonOf((await h.client.readResource({ uri: `notesapp://config/${key}` })).contents);
      assert.deepEqual(body, { key: 'plugins.settings.acme.sync', value: { token: '[redacted]', remote: '[redacted]' } });
    }
    const plugin = jsonOf((await h.client.readResource({ uri: 'notesapp://plugins/acme.sync' })).contents);
    assert.deepEqual(plugin, { name: 'acme.sync', installed: false, enabled: true, status: 'not installed', settings: { token: '[redacted]', remote: '[redacted]' } });
    await rejects(h.client, 'notesapp://config/plugins.settings.acme', /Unknown configuration key "plugins\.settings\.acme"/, -32002);
  });
});

describe('MCP resources of a plugins.enabled holding an empty name', () => {
  let h: Harness;
  before(async () => {
    h = await startServer({ config: { plugins: { enabled: ['', 'daily-notes'] } } });
  });
  after(async () => h?.close());

  it('lists and completes only the named plugin: the empty name is no resource', async () => {
    const { resources } = await h.client.listResources();
    assert.deepEqual(
      resources.filter((r) => r.uri.startsWith('notesapp://plugins/')).map((r) => r.uri),
      ['notesapp://plugins/daily-notes'],
    );
    const names = await h.client.complete({ ref: { type: 'ref/resource', uri: 'notesapp://plugins/{name}' }, argument: { name: 'name', value: '' } });
    assert.deepEqual(names.completion.values, ['daily-notes']);
    await rejects(h.client, 'notesapp://plugins/', /-32002/, -32002);
  });
});

describe('MCP resources of plugins named like built-in object properties', () => {
  let h: Harness;
  before(async () => {
    h = await startServer({ config: { plugins: { enabled: ['constructor'], settings: { toString: { token: 'own-secret' } } } } });
  });
  after(async () => h?.close());

  it('reads each with its own settings, {} when it has none, never an inherited property', async () => {
    const read = async (name: string) => jsonOf((await h.client.readResource({ uri: `notesapp://plugins/${name}` })).contents);
    assert.deepEqual(await read('constructor'), { name: 'constructor', installed: false, enabled: true, status: 'not installed', settings: {} });
    assert.deepEqual(await read('toString'), { name: 'toString', installed: false, enabled: false, status: 'not installed', settings: { token: '[redacted]' } });
    assert.deepEqual(await read('hasOwnProperty'), { name: 'hasOwnProperty', installed: false, enabled: false, status: 'not installed', settings: {} });
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

  it('sends notifications/resources/updated for an edit that keeps the size and sets the modification time back', async () => {
    const uri = 'notesapp://notes/sync-kept-times.md';
    const file = path.join(h.workspace, 'sync-kept-times.md');
    const then = new Date('2020-01-02T03:04:05Z');
    fs.writeFileSync(file, 'Meeting on Monday\n');
    fs.utimesSync(file, then, then);
    await h.client.subscribeResource({ uri });
    const updated = next<string>((resolve) => h.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => resolve(n.params.uri)));
    // As a sync tool keeping the original times does: the same number of bytes, written in place, then the old time.
    fs.writeFileSync(file, 'Meeting on Friday\n');
    fs.utimesSync(file, then, then);
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

  it('sends notifications/resources/updated for workspace/info when a note is edited, by another program or a tool (its size changes)', async () => {
    const uri = 'notesapp://workspace/info';
    const size = async () => jsonOf((await h.client.readResource({ uri })).contents).size as number;
    await h.client.subscribeResource({ uri });
    const before = await size();
    let updated = next<string>((resolve) => h.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => resolve(n.params.uri)));
    fs.appendFileSync(path.join(h.workspace, 'index.md'), 'x'.repeat(1000));
    assert.equal(await updated, uri);
    assert.equal(await size(), before + 1000);
    updated = next<string>((resolve) => h.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => resolve(n.params.uri)));
    await callOk(h.client, 'write_file', { path: 'index.md', content: 'Short now.\n' });
    assert.equal(await updated, uri);
    assert.ok((await size()) < before, 'the read gives the smaller size the notification announced');
    await h.client.unsubscribeResource({ uri });
  });

  it('sends nothing for a note after its unsubscribe, also when subscribe requests for it were sent together or just before', async () => {
    const twice = 'notesapp://notes/journal/2024-03-02.md';
    const thenUnsubscribed = 'notesapp://notes/archive/old-draft.md';
    const marker = 'notesapp://notes/meetings/2024-03-01%20Standup.md';
    const heard: string[] = [];
    let onMarker: (() => void) | undefined;
    h.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      heard.push(n.params.uri);
      if (n.params.uri === marker) onMarker?.();
    });
    // Two views of one note subscribing at once, then one unsubscribe; and a subscribe with its unsubscribe sent
    // right after it, unanswered yet: the unsubscribe, sent last, is what holds.
    await Promise.all([h.client.subscribeResource({ uri: twice }), h.client.subscribeResource({ uri: twice })]);
    await h.client.unsubscribeResource({ uri: twice });
    await Promise.all([h.client.subscribeResource({ uri: thenUnsubscribed }), h.client.unsubscribeResource({ uri: thenUnsubscribed })]);
    await h.client.subscribeResource({ uri: marker });
    fs.appendFileSync(path.join(h.workspace, 'journal', '2024-03-02.md'), '\nChanged after the unsubscribe.\n');
    fs.appendFileSync(path.join(h.workspace, 'archive', 'old-draft.md'), '\nChanged after the unsubscribe.\n');
    // The subscribed note changes after them, three times, each change heard before the next: files are compared
    // every 200 ms, so by the third a watcher left on the others would have reported them.
    for (let i = 0; i < 3; i++) {
      const heardMarker = new Promise<void>((resolve) => (onMarker = resolve));
      fs.appendFileSync(path.join(h.workspace, 'meetings', '2024-03-01 Standup.md'), `\nChange ${i}.\n`);
      await heardMarker;
    }
    assert.deepEqual(
      heard.filter((uri) => uri !== marker),
      [],
    );
    await h.client.unsubscribeResource({ uri: marker });
  });

  it('takes every spelling of a URI for one subscription: one notification per change, and any spelling ends it', async () => {
    const file = path.join(h.workspace, 'Garden Plan.md');
    fs.writeFileSync(file, '# Garden\n');
    const heard: string[] = [];
    let onHeard: (() => void) | undefined;
    h.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      heard.push(n.params.uri);
      onHeard?.();
    });
    const change = async (text: string) => {
      const got = new Promise<void>((resolve) => (onHeard = resolve));
      fs.appendFileSync(file, text);
      await got;
      // Files are compared every 200 ms: a second notification for this change would come within that.
      await new Promise((resolve) => setTimeout(resolve, 600));
    };
    await h.client.subscribeResource({ uri: 'notesapp://notes/Garden%20Plan.md' });
    await h.client.subscribeResource({ uri: 'notesapp://notes/Garden Plan.md' });
    await h.client.subscribeResource({ uri: 'NOTESAPP://notes/./Garden%20Plan.md' });
    await change('one\n');
    assert.deepEqual(heard, ['notesapp://notes/Garden%20Plan.md'], 'one subscription, named as it was first spelled');

    await h.client.unsubscribeResource({ uri: 'notesapp://notes/journal/../Garden Plan.md' });
    const marker = 'notesapp://notes/ideas.md';
    await h.client.subscribeResource({ uri: marker });
    heard.length = 0;
    fs.appendFileSync(file, 'two\n');
    // The subscribed note changes after it, three times, each heard before the next: a watcher left on the
    // unsubscribed note (files are compared every 200 ms) would have reported it by the third.
    for (let i = 0; i < 3; i++) {
      const gotMarker = new Promise<void>((resolve) => (onHeard = () => heard.at(-1) === marker && resolve()));
      fs.appendFileSync(path.join(h.workspace, 'ideas.md'), `\nmarker ${i}\n`);
      await gotMarker;
    }
    assert.deepEqual(heard, [marker, marker, marker], 'nothing for the unsubscribed note');
    await h.client.unsubscribeResource({ uri: marker });
  });

  it('refuses a subscription to a folder as a read of it is refused', async () => {
    await assert.rejects(h.client.subscribeResource({ uri: 'notesapp://notes/journal' }), /-32602: Cannot subscribe to notesapp:\/\/notes\/journal: "journal" is a folder, not a note\./);
    await assert.rejects(h.client.readResource({ uri: 'notesapp://notes/journal' }), /-32602/);
  });
});

describe('MCP resources/list in pages', () => {
  let h: Harness;
  let workspace: string;
  const count = 4_500;
  const name = (i: number) => `n/${String(i).padStart(4, '0')}.md`;
  before(async () => {
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'notes-pages-'));
    fs.mkdirSync(path.join(workspace, 'n'));
    for (let i = 0; i < count; i++) fs.writeFileSync(path.join(workspace, name(i)), `# ${i}\n`);
    h = await startServer({ workspace });
  });
  after(async () => h?.close());

  it('lists every note once, in pages of 2000 after the other resources, following nextCursor', async () => {
    const pages: Array<{ resources: Array<{ uri: string; name: string }>; nextCursor?: string }> = [];
    let cursor: string | undefined;
    do {
      const page = await h.client.listResources(cursor === undefined ? undefined : { cursor });
      pages.push(page);
      cursor = page.nextCursor;
    } while (cursor !== undefined && pages.length < 10);
    assert.deepEqual(pages.map((p) => p.resources.filter((r) => r.uri.startsWith('notesapp://notes/')).length), [2000, 2000, 500]);
    assert.deepEqual(pages.map((p) => typeof p.nextCursor), ['string', 'string', 'undefined']);
    const notes = pages.flatMap((p) => p.resources.filter((r) => r.uri.startsWith('notesapp://notes/')).map((r) => r.name));
    assert.deepEqual(notes, Array.from({ length: count }, (_, i) => name(i)));
    // The workspace, theme and configuration come once, on the first page.
    const others = pages.map((p) => p.resources.filter((r) => !r.uri.startsWith('notesapp://notes/')).map((r) => r.uri));
    assert.ok(others[0].includes('notesapp://workspace/info') && others[0].includes('notesapp://theme/current') && others[0].includes('notesapp://config/editor'), others[0].join(' '));
    assert.deepEqual(others.slice(1), [[], []]);
  });

  it('answers a cursor it did not give with -32602 "invalid cursor", and keeps serving', async () => {
    const first = await h.client.listResources();
    const issued = first.nextCursor!;
    const tampered = `${issued.slice(0, -1)}${issued.endsWith('A') ? 'B' : 'A'}`;
    // The path of a page's last note, a page of other resources by number, nonsense, and a cursor altered by a byte.
    for (const cursor of [name(1999), '/resources/99999', 'garbage cursor', '', 'zzz', tampered]) {
      await assert.rejects(h.client.listResources({ cursor }), (err: Error & { code?: number }) => {
        assert.equal(err.code, -32602, `${JSON.stringify(cursor)}: ${err.message}`);
        assert.match(err.message, /Invalid cursor .*not a nextCursor this server gave/);
        return true;
      });
    }
    const second = await h.client.listResources({ cursor: issued });
    assert.equal(second.resources[0].name, name(2000));
  });

  it('completes note paths with the number of matches and hasMore when there are more than the 100 sent', async () => {
    const resource = await h.client.complete({ ref: { type: 'ref/resource', uri: 'notesapp://notes/{+path}' }, argument: { name: 'path', value: 'n/00' } });
    assert.deepEqual(resource.completion.values, Array.from({ length: 100 }, (_, i) => name(i)));
    assert.equal(resource.completion.total, 100);
    assert.equal(resource.completion.hasMore, false);
    const all = await h.client.complete({ ref: { type: 'ref/resource', uri: 'notesapp://notes/{+path}' }, argument: { name: 'path', value: 'n/' } });
    assert.equal(all.completion.values.length, 100);
    assert.equal(all.completion.total, count);
    assert.equal(all.completion.hasMore, true);
    const prompt = await h.client.complete({ ref: { type: 'ref/prompt', name: 'summarize-note' }, argument: { name: 'path', value: 'n/1' } });
    assert.deepEqual(prompt.completion.values, Array.from({ length: 100 }, (_, i) => name(1000 + i)));
    assert.equal(prompt.completion.total, 1000);
    assert.equal(prompt.completion.hasMore, true);
  });

  it('neither repeats nor skips a note when notes are created and deleted between pages', async () => {
    const first = await h.client.listResources();
    assert.equal(first.resources.at(-1)?.name, name(1999));
    fs.writeFileSync(path.join(workspace, 'n/0000a.md'), 'before the cursor\n');
    fs.rmSync(path.join(workspace, name(2000)));
    fs.writeFileSync(path.join(workspace, 'n/2500a.md'), 'after the cursor\n');
    // The index sees the changes through its watchers; a list_files answer shows when.
    for (let i = 0; i < 100; i++) {
      const listed = await callOk<{ files: string[] }>(h.client, 'list_files', {});
      if (listed.files.includes('n/2500a.md') && !listed.files.includes(name(2000))) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const second = await h.client.listResources({ cursor: first.nextCursor! });
    const names = second.resources.map((r) => r.name);
    assert.equal(names[0], name(2001));
    assert.ok(names.includes('n/2500a.md'));
    assert.ok(!names.includes('n/0000a.md') && !names.includes(name(1999)) && !names.includes(name(2000)));
    assert.equal(names.length, 2000);
  });
});

describe('MCP completion of configuration keys, more than 100 of them', () => {
  it('sends the first 100 with the number of keys that match and hasMore', async () => {
    const settings = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`plugin-${String(i).padStart(3, '0')}`, { on: true }]));
    const h = await startServer({ config: { plugins: { settings } } });
    try {
      const keys = await h.client.complete({ ref: { type: 'ref/resource', uri: 'notesapp://config/{key}' }, argument: { name: 'key', value: 'plugins.settings.' } });
      assert.equal(keys.completion.values.length, 100);
      assert.equal(keys.completion.total, 150);
      assert.equal(keys.completion.hasMore, true);
      assert.equal(keys.completion.values[0], 'plugins.settings.plugin-000');
    } finally {
      await h.close();
    }
  });
});

describe('MCP list_changed at start', () => {
  it('is not sent when no note changed, though the folders were modified just before the start, nor for a repeated initialized', async () => {
    // A fresh copy of the fixture and a note written just now: every folder is too recent for the early listing to
    // trust, so the index reads them again after the handshake, and finds the same notes.
    const workspace = copyFixture();
    fs.writeFileSync(path.join(workspace, 'fresh.md'), '# Fresh\n');
    const changes: string[] = [];
    const h = await startServer({
      workspace,
      setup: (client) => client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void changes.push('list_changed')),
    });
    try {
      assert.ok((await callOk<{ files: string[] }>(h.client, 'list_files')).files.includes('fresh.md'));
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await h.client.notification({ method: 'notifications/initialized' });
      await h.client.notification({ method: 'notifications/initialized' });
      await new Promise((resolve) => setTimeout(resolve, 1000));
      assert.match(h.stderr(), /from the early listing/);
      assert.deepEqual(changes, [], 'nothing changed, so nothing was announced');
      // A real change still is, once.
      fs.writeFileSync(path.join(workspace, 'later.md'), '# Later\n');
      for (let i = 0; i < 200 && changes.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 25));
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.deepEqual(changes, ['list_changed']);
    } finally {
      await h.close();
    }
  });
});

describe('MCP list_changed after the file settings changed', () => {
  it('tells the client of a note another program creates where only the new files.excludePatterns list notes', async () => {
    const workspace = copyFixture();
    fs.mkdirSync(path.join(workspace, 'hidden-away'));
    const changes: string[] = [];
    const h = await startServer({
      workspace,
      config: { files: { excludePatterns: ['**/node_modules/**', '**/hidden-away/**'] } },
      setup: (client) => client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void changes.push('list_changed')),
    });
    try {
      await callOk(h.client, 'list_files');
      await new ConfigStore({ file: h.configPath }).updateConfig({ files: { excludePatterns: ['**/node_modules/**'] } });
      for (let i = 0; i < 400 && !/changed; the new values apply/.test(h.stderr()); i++) await new Promise((resolve) => setTimeout(resolve, 25));
      // The next listing is made by the new settings' index, which watches the folder.
      await callOk(h.client, 'list_files');
      await new Promise((resolve) => setTimeout(resolve, 500));
      changes.length = 0;
      fs.writeFileSync(path.join(workspace, 'hidden-away', 'found.md'), '# Found\n');
      for (let i = 0; i < 200 && changes.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 25));
      assert.deepEqual(changes, ['list_changed']);
      assert.ok((await h.client.listResources()).resources.some((r) => r.uri === 'notesapp://notes/hidden-away/found.md'));
    } finally {
      await h.close();
    }
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

describe('MCP resources/list with 150 000 plugins named in the configuration', () => {
  let h: Harness;
  const plugins = Array.from({ length: 150_000 }, (_, i) => `p${i}`);
  before(async () => {
    h = await startServer({ config: { plugins: { enabled: plugins } } });
  });
  after(async () => h?.close());

  it('lists each plugin once, 2000 resources a page, then the notes', async () => {
    // The plugins were pushed as the arguments of one call, over the stack's limit; then the one page they were all
    // on was 40 MB, over the payload limit.
    const uris: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await h.client.listResources(cursor === undefined ? undefined : { cursor });
      assert.ok(page.resources.length <= 2000 + 2000, `page ${pages}: ${page.resources.length}`);
      for (const r of page.resources) uris.push(r.uri);
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== undefined);
    const listed = uris.filter((u) => u.startsWith('notesapp://plugins/'));
    assert.deepEqual(listed, [...plugins].sort().map((p) => `notesapp://plugins/${p}`));
    assert.equal(new Set(uris).size, uris.length, 'nothing listed twice');
    assert.ok(uris.includes('notesapp://notes/index.md') && uris.includes('notesapp://workspace/info'));
    assert.ok(pages >= 75, `${pages} pages`);
  });
});
