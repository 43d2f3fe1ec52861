// The editor bridge as a server outside VS Code meets it: discovery file, token, and the three editor operations.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import * as vscode from 'vscode';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import { discoveryFilePath } from '../../src/core/bridge/discovery';
import { BRIDGE_PROTOCOL_VERSION, BridgeErrorCodes, BridgeMethods, discoveryFile, editorContent, editResult } from '../../src/core/bridge/protocol';
import { EXTENSION_ID, notesApi, openScratchNote } from './shell-helpers';

function discovery() {
  const configPath = process.env.NOTESAPP_CONFIG_PATH;
  assert.ok(configPath, 'the runner sets NOTESAPP_CONFIG_PATH');
  const folder = vscode.workspace.workspaceFolders![0].uri.fsPath;
  const file = discoveryFilePath(path.dirname(configPath), folder);
  return { file, record: discoveryFile.parse(JSON.parse(fs.readFileSync(file, 'utf8'))), folder };
}

async function connect(address: string): Promise<{ connection: MessageConnection; socket: net.Socket; closed: Promise<void> }> {
  const socket = net.connect(address);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const connection = createMessageConnection(new StreamMessageReader(socket), new StreamMessageWriter(socket));
  connection.listen();
  return { connection, socket, closed };
}

type ScratchNote = Awaited<ReturnType<typeof openScratchNote>>;

/** Opens a scratch note holding `text`, connects and authenticates to this window's bridge, runs `body`, and cleans up. */
async function withAuthenticatedBridge(text: string, body: (note: ScratchNote, connection: MessageConnection) => Promise<void>): Promise<void> {
  const note = await openScratchNote(text);
  const { record } = discovery();
  const { connection, socket } = await connect(record.address);
  try {
    await connection.sendRequest(BridgeMethods.authenticate, { token: record.token, protocolVersion: BRIDGE_PROTOCOL_VERSION });
    await body(note, connection);
  } finally {
    connection.dispose();
    socket.destroy();
    await note.dispose();
  }
}

describe('shell: editor bridge (direct vscode-jsonrpc client)', function () {
  this.timeout(30000);
  before(async () => {
    await notesApi();
  });

  it('writes a 0600 discovery file for the open folder, pointing at a socket in a private 0700 folder', () => {
    const { file, record, folder } = discovery();
    assert.equal(record.workspaceFolder, path.resolve(folder));
    assert.equal(record.pid, process.pid, 'written by this extension host');
    assert.equal(record.protocolVersion, BRIDGE_PROTOCOL_VERSION);
    assert.ok(record.token.length >= 32, 'a long random token');
    if (process.platform === 'win32') {
      assert.match(record.address, /^\\\\\.\\pipe\\notesapp-bridge-[0-9a-f]{32}$/);
    } else {
      assert.equal(fs.statSync(file).mode & 0o777, 0o600);
      assert.equal(fs.statSync(path.dirname(record.address)).mode & 0o777, 0o700);
    }
  });

  it('refuses a wrong token and closes the connection', async () => {
    const { record } = discovery();
    const { connection, closed } = await connect(record.address);
    await assert.rejects(
      connection.sendRequest(BridgeMethods.authenticate, { token: 'not-the-token', protocolVersion: BRIDGE_PROTOCOL_VERSION }),
      (err: { code?: number }) => err.code === BridgeErrorCodes.unauthorized,
    );
    await closed;
    connection.dispose();
  });

  it('refuses an editor request before authentication and closes the connection', async () => {
    const { record } = discovery();
    const { connection, closed } = await connect(record.address);
    await assert.rejects(connection.sendRequest(BridgeMethods.getEditorContent, {}), (err: { code?: number }) => err.code === BridgeErrorCodes.unauthorized);
    await closed;
    connection.dispose();
  });

  it('reads, replaces (one undo reverts) and inserts at every cursor of the active editor', async () => {
    const note = await openScratchNote('# Scratch\n\nfirst line\nsecond line\n');
    const { record, folder } = discovery();
    const { connection, socket } = await connect(record.address);
    try {
      const auth = await connection.sendRequest(BridgeMethods.authenticate, { token: record.token, protocolVersion: BRIDGE_PROTOCOL_VERSION });
      const version = String(vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON.version);
      assert.deepEqual(auth, { ok: true, protocolVersion: BRIDGE_PROTOCOL_VERSION, version, workspaceFolders: [folder] });

      const got = editorContent.parse(await connection.sendRequest(BridgeMethods.getEditorContent, {}));
      assert.equal(got.content, '# Scratch\n\nfirst line\nsecond line\n');
      assert.equal(got.path, note.relative);
      assert.equal(got.languageId, 'markdown');
      assert.equal(got.isDirty, false);

      const set = editResult.parse(await connection.sendRequest(BridgeMethods.setEditorContent, { content: '# Replaced\n' }));
      assert.deepEqual(set, { applied: true, path: note.relative, uri: note.editor.document.uri.toString(), edits: 1 });
      assert.equal(note.editor.document.getText(), '# Replaced\n');
      assert.equal(note.editor.document.isDirty, true, 'changed, not saved');
      await vscode.commands.executeCommand('undo');
      assert.equal(note.editor.document.getText(), '# Scratch\n\nfirst line\nsecond line\n', 'one undo reverts the whole replacement');

      // Text read from a file saved with a BOM: the mark is the file's encoding, not text of the document.
      await connection.sendRequest(BridgeMethods.setEditorContent, { content: '\uFEFF# With BOM\n' });
      assert.equal(note.editor.document.getText(), '# With BOM\n');
      await vscode.commands.executeCommand('undo');
      assert.equal(note.editor.document.getText(), '# Scratch\n\nfirst line\nsecond line\n');

      // Two cursors: one collapsed at the start of "first", one selecting "second".
      note.editor.selections = [new vscode.Selection(2, 0, 2, 0), new vscode.Selection(3, 0, 3, 6)];
      const inserted = editResult.parse(await connection.sendRequest(BridgeMethods.insertAtCursor, { content: '>>' }));
      assert.equal(inserted.edits, 2);
      assert.equal(note.editor.document.getText(), '# Scratch\n\n>>first line\n>> line\n');
      await vscode.commands.executeCommand('undo');
      assert.equal(note.editor.document.getText(), '# Scratch\n\nfirst line\nsecond line\n', 'one undo reverts the insertion');

      await assert.rejects(connection.sendRequest(BridgeMethods.setEditorContent, { content: 42 }), (err: { code?: number }) => err.code === -32602);
      await assert.rejects(connection.sendRequest('notesapp/nope', {}), (err: { code?: number }) => err.code === -32601);
      assert.equal(note.editor.document.getText(), '# Scratch\n\nfirst line\nsecond line\n', 'bad requests change nothing');
    } finally {
      connection.dispose();
      socket.destroy();
      await note.dispose();
    }
  });

  it("gives a text longer than the length asked for as its length only, counted as VS Code's text is, line ends included", async () => {
    // CRLF line ends count two characters each, as in getText(); a last line without a line end counts too.
    const text = '# Long\r\n\r\nfirst line\r\nlast line without end';
    await withAuthenticatedBridge(text, async (note, connection) => {
      const whole = note.editor.document.getText();
      const omitted = editorContent.parse(await connection.sendRequest(BridgeMethods.getEditorContent, { maxLength: whole.length - 1 }));
      assert.deepEqual(omitted, { content: '', path: note.relative, uri: note.editor.document.uri.toString(), languageId: 'markdown', isDirty: false, omittedLength: whole.length });
      const sent = editorContent.parse(await connection.sendRequest(BridgeMethods.getEditorContent, { maxLength: whole.length }));
      assert.equal(sent.content, whole);
      assert.equal(sent.omittedLength, undefined);
    });
  });

  it('refuses to edit a read-only editor, saying so, and leaves it unchanged', async () => {
    await withAuthenticatedBridge('# Locked\n', async (note, connection) => {
      await vscode.commands.executeCommand('workbench.action.files.setActiveEditorReadonlyInSession');
      try {
        const readOnly = (err: { code?: number; message?: string }) => err.code === BridgeErrorCodes.editRejected && /is read-only\. Nothing was changed\./.test(err.message ?? '');
        await assert.rejects(connection.sendRequest(BridgeMethods.insertAtCursor, { content: 'added' }), readOnly);
        await assert.rejects(connection.sendRequest(BridgeMethods.setEditorContent, { content: '# Replaced\n' }), readOnly);
        assert.equal(note.editor.document.getText(), '# Locked\n');
        assert.equal(note.editor.document.isDirty, false);
      } finally {
        await vscode.commands.executeCommand('workbench.action.files.setActiveEditorWriteableInSession');
      }
    });
  });

  it('makes edits sent in parallel one after another, refusing none', async () => {
    await withAuthenticatedBridge('start\n', async (note, connection) => {
      note.editor.selections = [new vscode.Selection(1, 0, 1, 0)];
      const insert = (content: string) => connection.sendRequest(BridgeMethods.insertAtCursor, { content }).then((r) => editResult.parse(r).applied);
      assert.deepEqual(await Promise.all([insert('one\n'), insert('two\n'), insert('three\n')]), [true, true, true]);
      assert.equal(note.editor.document.getText(), 'start\none\ntwo\nthree\n');
      const set = connection.sendRequest(BridgeMethods.setEditorContent, { content: 'replaced\n' }).then((r) => editResult.parse(r).applied);
      assert.deepEqual(await Promise.all([set, insert('after')]), [true, true]);
      assert.equal(note.editor.document.getText(), 'replaced\nafter');
    });
  });
});
