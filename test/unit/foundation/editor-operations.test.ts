// The extension's editor operations behind the bridge, on the fake VS Code editor, reached as the MCP server does.
import * as assert from 'node:assert/strict';
import { CancellationTokenSource } from 'vscode-jsonrpc/node';
import { BRIDGE_ENV, BridgeErrorCodes } from '../../../src/core/bridge/protocol';
import { BridgeServer } from '../../../src/vscode/bridge/bridge-server';
import { getEditorContent, insertAtCursor, setEditorContent } from '../../../src/vscode/bridge/editor-operations';
import { EditorBridgeClient } from '../../../server/editor-bridge-client';
import { fakeLog, Position, resetFake, Selection, showFakeEditor, Uri } from '../fake-vscode';

describe('editor operations served by the bridge', () => {
  let bridge: BridgeServer;
  let client: EditorBridgeClient;
  beforeEach(async () => {
    resetFake();
    bridge = BridgeServer.start({ getEditorContent, setEditorContent, insertAtCursor, workspaceFolders: () => [] }, fakeLog());
    await bridge.ready;
    const env = { [BRIDGE_ENV.address]: bridge.endpoint.address, [BRIDGE_ENV.token]: bridge.endpoint.token };
    client = new EditorBridgeClient({ workspaceRoot: process.cwd(), configDir: process.cwd(), env });
  });
  afterEach(() => {
    client.dispose();
    bridge.dispose();
    resetFake();
  });

  it('refuse to edit a read-only editor, saying so, and leave it unchanged', async () => {
    const editor = showFakeEditor(Uri.from({ scheme: 'git', path: '/ws/a.md' }), '# Old\n', { readOnly: true });
    editor.selections = [new Selection(new Position(1, 0), new Position(1, 0))];
    await assert.rejects(client.insertAtCursor('added'), /VS Code rejected the edit: .*git:\/\/\/ws\/a\.md is read-only\. Nothing was changed\./);
    await assert.rejects(client.setEditorContent('# New\n'), /VS Code rejected the edit: .*git:\/\/\/ws\/a\.md is read-only\. Nothing was changed\./);
    assert.equal(editor.document.getText(), '# Old\n');
    assert.equal(editor.document.isDirty, false);
    // Nothing to change is no refusal: the editor already reads as asked.
    assert.equal((await client.setEditorContent('# Old\n')).applied, true);
    assert.equal((await client.insertAtCursor('')).applied, true);
  });

  it('replace and insert in a writable editor as before', async () => {
    const editor = showFakeEditor(Uri.file('/ws/b.md'), 'one\ntwo\n');
    assert.deepEqual(await client.setEditorContent('first\nsecond\n'), { applied: true, path: null, uri: 'file:///ws/b.md', edits: 1 });
    editor.selections = [new Selection(new Position(0, 0), new Position(0, 0)), new Selection(new Position(1, 0), new Position(1, 6))];
    assert.equal((await client.insertAtCursor('> ')).edits, 2);
    assert.equal(editor.document.getText(), '> first\n> \n');
    assert.equal((await client.getEditorContent()).content, '> first\n> \n');
  });

  it('leave out a text longer than the server asks for, giving its length, and send one of that length whole', async () => {
    showFakeEditor(Uri.file('/ws/long.md'), 'line one\nline two\n');
    assert.deepEqual(await client.getEditorContent(17), { content: '', path: null, uri: 'file:///ws/long.md', languageId: 'markdown', isDirty: false, omittedLength: 18 });
    assert.equal((await client.getEditorContent(18)).content, 'line one\nline two\n');
    // A server of before maxLength asks for no length, and gets the whole text.
    assert.equal((await client.getEditorContent()).content, 'line one\nline two\n');
  });

  it('replace the text without a byte order mark the new text starts with, as VS Code reads a file', async () => {
    const editor = showFakeEditor(Uri.file('/ws/bom.md'), '---\ntitle: Old\n---\n');
    // What read_file answers for a file saved with a BOM.
    assert.equal((await client.setEditorContent('\uFEFF---\ntitle: New\n---\n')).applied, true);
    assert.equal(editor.document.getText(), '---\ntitle: New\n---\n');
    assert.equal((await client.getEditorContent()).content, '---\ntitle: New\n---\n');
    // Only the mark goes: a second U+FEFF is text.
    await client.setEditorContent('\uFEFF\uFEFFx');
    assert.equal(editor.document.getText(), '\uFEFFx');
  });

  it('make parallel edits one after another, none refused for the ones before it', async () => {
    const editor = showFakeEditor(Uri.file('/ws/c.md'), 'start\n');
    editor.selections = [new Selection(new Position(1, 0), new Position(1, 0))];
    const inserted = await Promise.all([client.insertAtCursor('one\n'), client.insertAtCursor('two\n'), client.insertAtCursor('three\n')]);
    assert.deepEqual(inserted.map((r) => r.applied), [true, true, true]);
    assert.equal(editor.document.getText(), 'start\none\ntwo\nthree\n');
    const [set, insert] = await Promise.all([client.setEditorContent('replaced\n'), client.insertAtCursor('after')]);
    assert.equal(set.applied && insert.applied, true);
    assert.equal(editor.document.getText(), 'replaced\nafter');
  });

  it('do not make an edit the client withdrew while it waited for the ones before it', async () => {
    const editor = showFakeEditor(Uri.file('/ws/d.md'), 'start\n');
    const withdrawn = new CancellationTokenSource();
    const first = setEditorContent('first\n');
    const second = insertAtCursor('second', withdrawn.token);
    withdrawn.cancel();
    assert.equal((await first).applied, true);
    await assert.rejects(second, (err: { code?: number; message?: string }) => err.code === BridgeErrorCodes.cancelled && /nothing was done/.test(err.message ?? ''));
    assert.equal(editor.document.getText(), 'first\n');
  });
});
