// tools/list: the 16 tools of the spec with titles, descriptions, schemas and annotations; category toggles; mcp.enabled.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { callError, callOk, JSON_TOOLS, serverJs, startServer } from './harness';

/** A tools/call that must be answered with a JSON-RPC error (not a tool result); returns its message. */
async function callRefused(client: Client, name: string, args: Record<string, unknown>, code: number): Promise<string> {
  let message = '';
  await assert.rejects(client.callTool({ name, arguments: args }), (err: Error & { code?: number }) => {
    assert.equal(err.code, code, err.message);
    message = err.message;
    return true;
  });
  return message;
}

const demoNotes = path.resolve(__dirname, '../../../media/demo-notes');

const CATEGORIES = {
  fileOperations: ['read_file', 'write_file', 'list_files', 'create_file', 'delete_file', 'create_note', 'get_note_metadata', 'update_note_metadata', 'get_workspace_info', 'get_workspace_stats'],
  search: ['search_files'],
  editor: ['get_editor_content', 'set_editor_content', 'insert_at_cursor'],
  ai: ['summarize_note', 'extract_tasks'],
};
const ALL = Object.values(CATEGORIES).flat().sort();
/** Tools that may replace or remove what is there (MCP's destructiveHint); the others only read or add. */
const DESTRUCTIVE = ['write_file', 'delete_file', 'set_editor_content', 'insert_at_cursor', 'update_note_metadata'];
/** Tools that write and whose repeated call has no further effect (MCP's idempotentHint, meaningful for writers). */
const IDEMPOTENT_WRITERS = ['write_file', 'create_file', 'delete_file', 'set_editor_content', 'update_note_metadata'];
const READ_ONLY = ['read_file', 'list_files', 'search_files', 'get_editor_content', 'get_note_metadata', 'get_workspace_info', 'get_workspace_stats', 'summarize_note', 'extract_tasks'];

describe('MCP tools/list', () => {
  it('lists the 16 tools of the spec, each with title, description, described arguments, output schema (but the two JSON tools) and annotations', async () => {
    const h = await startServer();
    try {
      const { tools } = await h.client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), ALL);
      for (const tool of tools) {
        assert.ok(tool.title && tool.title.length > 3, `${tool.name} has a title`);
        assert.ok(tool.description && tool.description.length > 40, `${tool.name} has a description for the model`);
        for (const [arg, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
          assert.ok((schema as { description?: string }).description, `${tool.name}.${arg} is described`);
        }
        // search_files and list_files answer JSON text once, with no output schema (see their tests).
        if (JSON_TOOLS.includes(tool.name)) assert.equal(tool.outputSchema, undefined, `${tool.name} has no output schema`);
        else assert.equal(tool.outputSchema?.type, 'object', `${tool.name} has an output schema`);
        assert.equal(tool.annotations?.readOnlyHint, READ_ONLY.includes(tool.name), `${tool.name} readOnlyHint`);
        assert.equal(tool.annotations?.destructiveHint, DESTRUCTIVE.includes(tool.name), `${tool.name} destructiveHint`);
        assert.equal(typeof tool.annotations?.idempotentHint, 'boolean');
        if (!READ_ONLY.includes(tool.name)) assert.equal(tool.annotations?.idempotentHint, IDEMPOTENT_WRITERS.includes(tool.name), `${tool.name} idempotentHint`);
      }
      const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
      assert.deepEqual(byName.search_files.inputSchema.required, ['query']);
      assert.deepEqual(Object.keys(byName.search_files.inputSchema.properties ?? {}).sort(), ['case_sensitive', 'query', 'regex']);
      assert.deepEqual(byName.create_note.inputSchema.required, ['title']);
      assert.deepEqual(byName.update_note_metadata.inputSchema.required, ['path', 'metadata']);
      // A selection is replaced, keys set to null are removed: not additive only.
      assert.equal(byName.insert_at_cursor.annotations?.destructiveHint, true);
      assert.equal(byName.update_note_metadata.annotations?.destructiveHint, true);
      assert.equal(byName.create_file.annotations?.destructiveHint, false);
    } finally {
      await h.close();
    }
  });

  it('idempotentHint holds: a repeated create_file or delete_file fails and changes nothing, a repeated create_note makes another note', async () => {
    const h = await startServer();
    try {
      const { tools } = await h.client.listTools();
      const hint = (name: string) => tools.find((t) => t.name === name)?.annotations?.idempotentHint;
      const listing = async () => (await callOk<{ files: string[] }>(h.client, 'list_files')).files;

      assert.equal(hint('create_file'), true);
      await callOk(h.client, 'create_file', { path: 'new.md', content: 'first' });
      const afterCreate = await listing();
      assert.match(await callError(h.client, 'create_file', { path: 'new.md', content: 'second' }), /^"new\.md" already exists\.$/);
      assert.equal(fs.readFileSync(path.join(h.workspace, 'new.md'), 'utf8'), 'first');
      assert.deepEqual(await listing(), afterCreate);

      assert.equal(hint('delete_file'), true);
      await callOk(h.client, 'delete_file', { path: 'new.md' });
      const afterDelete = await listing();
      assert.match(await callError(h.client, 'delete_file', { path: 'new.md' }), /^File not found: "new\.md"\.$/);
      assert.deepEqual(await listing(), afterDelete);

      assert.equal(hint('create_note'), false);
      const first = await callOk<{ path: string }>(h.client, 'create_note', { title: 'Again' });
      const second = await callOk<{ path: string }>(h.client, 'create_note', { title: 'Again' });
      assert.deepEqual([first.path, second.path], ['Again.md', 'Again 2.md']);
    } finally {
      await h.close();
    }
  });

  it('answers a call to a tool it does not have with JSON-RPC error -32602 naming its tools, and bad arguments with a tool error', async () => {
    const h = await startServer();
    try {
      for (const name of ['no_such_tool', 'toString', '__proto__', '']) {
        const refused = await callRefused(h.client, name, {}, -32602);
        assert.match(refused, /Unknown tool ".*"\. This server's tools: read_file, write_file, list_files/);
        assert.doesNotMatch(refused, /MCP error -32602: MCP error/);
      }
      // Arguments that do not fit the tool's schema stay a tool error, which the model reads and corrects.
      assert.match(await callError(h.client, 'read_file', { path: 5 }), /Input validation error: Invalid arguments for tool read_file/);
      assert.match(await callError(h.client, 'read_file', {}), /Input validation error/);
      await callOk(h.client, 'read_file', { path: 'index.md' });
    } finally {
      await h.close();
    }
  });

  for (const [category, names] of Object.entries(CATEGORIES)) {
    it(`integrations.mcp.tools.${category}: false removes ${names.length === 1 ? names[0] : `its ${names.length} tools`} and a call says it is disabled`, async () => {
      const h = await startServer({ config: { integrations: { mcp: { tools: { [category]: false } } } } });
      try {
        const listed = (await h.client.listTools()).tools.map((t) => t.name).sort();
        assert.deepEqual(listed, ALL.filter((n) => !names.includes(n)));
        const refused = await callRefused(h.client, names[0], { path: 'index.md', query: 'x', content: 'x', title: 'x', metadata: {} }, -32602);
        assert.match(refused, new RegExp(`Tool ${names[0]} is disabled: integrations\\.mcp\\.tools\\.${category} is false in the configuration`));
        assert.match(h.client.getInstructions() ?? '', new RegExp(`Disabled tool categories \\(integrations\\.mcp\\.tools\\): ${category}`));
        // Other categories keep working.
        const other = names.includes('list_files') ? 'extract_tasks' : 'list_files';
        await callOk(h.client, other, { path: 'index.md' });
      } finally {
        await h.close();
      }
    });
  }
});

/** The message templates of the README's tool error tables (its first column), as patterns for a message's start. */
function documentedToolErrors(): RegExp[] {
  const readme = fs.readFileSync(path.resolve(__dirname, '../../../README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### Tool errors'), readme.indexOf('### Limits'));
  const templates: RegExp[] = [];
  for (const row of section.split('\n').filter((l) => l.startsWith('| `'))) {
    const first = row.slice(2, row.indexOf(' | '));
    for (const m of first.matchAll(/``\s?(.+?)\s?``|`([^`]+)`/g)) {
      const template = m[1] ?? m[2];
      const pattern = template
        .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
        .replace(/…/g, '[\\s\\S]*?')
        .replace(/<tool>/g, '\\w+');
      templates.push(new RegExp(`^${pattern}`));
    }
  }
  return templates;
}

describe('the README\'s tool error tables', () => {
  it('document every error a call with bad arguments or on a bad file gets', async () => {
    const h = await startServer({ config: { security: { maxFileSize: 1000 } } });
    try {
      const ws = h.workspace;
      fs.writeFileSync(path.join(ws, 'plain.txt'), 'plain');
      fs.writeFileSync(path.join(ws, 'broken.md'), '---\ntitle: [x\n---\nbody\n');
      fs.writeFileSync(path.join(ws, 'rule.md'), '---\n\nA paragraph between two rules.\n\n---\nbody\n');
      fs.writeFileSync(path.join(ws, 'flow.md'), '---\n{a: 1} # a comment\n---\nbody\n');
      fs.writeFileSync(path.join(ws, 'latin1.md'), Buffer.from('caf\xe9\n', 'latin1'));
      fs.writeFileSync(path.join(ws, 'binary.md'), Buffer.from([0x61, 0, 0x62]));
      fs.writeFileSync(path.join(ws, 'big.md'), 'x'.repeat(2000));
      const calls: Array<[string, Record<string, unknown>]> = [
        ['read_file', { path: 'nope.md' }],
        ['read_file', { path: '../outside.md' }],
        ['read_file', { path: 'big.md' }],
        ['read_file', { path: 'binary.md' }],
        ['read_file', { path: 'projects' }],
        ['read_file', { path: `${'a'.repeat(300)}.md` }],
        ['read_file', { path: 5 }],
        ['write_file', { path: 'x.exe', content: '' }],
        ['write_file', { path: 'x.md', content: 'y'.repeat(2000) }],
        ['write_file', { path: '.', content: '' }],
        ['write_file', { path: 'index.md/x.md', content: '' }],
        ['create_file', { path: 'index.md' }],
        ['delete_file', { path: 'projects' }],
        ['delete_file', { path: 'nope.md' }],
        ['create_note', { title: 'x', folder: 'index.md' }],
        ['get_note_metadata', { path: 'binary.md' }],
        ['update_note_metadata', { path: 'plain.txt', metadata: { a: 1 } }],
        ['update_note_metadata', { path: 'broken.md', metadata: { a: 1 } }],
        ['update_note_metadata', { path: 'rule.md', metadata: { a: 1 } }],
        ['update_note_metadata', { path: 'flow.md', metadata: { a: 1 } }],
        ['update_note_metadata', { path: 'latin1.md', metadata: { a: 1 } }],
        ['summarize_note', { path: 'index.md', maxLength: 5 }],
        ['extract_tasks', { path: 'nope.md' }],
        ['search_files', { query: '(', regex: true }],
        ['search_files', { query: 'x'.repeat(10001) }],
        ['get_editor_content', {}],
      ];
      const templates = documentedToolErrors();
      assert.ok(templates.length > 10, `the tables hold ${templates.length} messages`);
      for (const [name, args] of calls) {
        const message = await callError(h.client, name, args);
        assert.ok(
          templates.some((t) => t.test(message)),
          `${name} ${JSON.stringify(args).slice(0, 60)}: "${message.slice(0, 120)}" is not in the README's tool error tables`,
        );
      }
    } finally {
      await h.close();
    }
  });
});

describe('integrations.mcp.enabled', () => {
  it('false makes the server exit at start with a clear message on stderr and a non-zero status', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-disabled-'));
    try {
      const config = path.join(dir, 'config.json');
      fs.writeFileSync(config, JSON.stringify({ integrations: { mcp: { enabled: false } } }));
      const r = spawnSync(process.execPath, [serverJs, '--workspace', dir, '--config', config], { encoding: 'utf8', input: '', env: { ...process.env, HOME: dir } });
      assert.equal(r.status, 1);
      assert.match(r.stderr, /the MCP server is disabled \(integrations\.mcp\.enabled is false in .*config\.json\)/);
      assert.equal(r.stdout, '');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the demo notes workspace', () => {
  it('serves media/demo-notes: 16 tools, every note counted, a search that finds what is on disk', async () => {
    const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-demo-'));
    fs.cpSync(demoNotes, workspace, { recursive: true });
    const h = await startServer({ workspace });
    try {
      assert.equal((await h.client.listTools()).tools.length, 16);
      const notes = (fs.readdirSync(workspace, { recursive: true }) as string[]).filter((f) => f.endsWith('.md') && !f.split(path.sep).some((p) => p.startsWith('.')));
      const info = await callOk<{ noteCount: number; name: string }>(h.client, 'get_workspace_info');
      assert.equal(info.noteCount, notes.length);
      const first = fs.readFileSync(path.join(workspace, notes[0]), 'utf8').split('\n').find((l) => /\w{4,}/.test(l)) ?? '';
      const word = /\w{4,}/.exec(first)?.[0] ?? '';
      const found = await callOk<{ results: Array<{ file: string }> }>(h.client, 'search_files', { query: word });
      assert.ok(found.results.some((r) => r.file === notes[0].split(path.sep).join('/')), `"${word}" is found in ${notes[0]}`);
    } finally {
      await h.close();
    }
  });
});
