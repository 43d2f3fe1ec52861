// The editor bridge contract between the extension (serves the live editor) and the MCP server (client).
//
// Transport: a Unix domain socket inside a private 0700 folder (a named pipe on Windows), framed by
// vscode-jsonrpc's StreamMessageReader/StreamMessageWriter (Content-Length headers). The first request on a
// connection must be `notesapp/authenticate` with the token; the extension closes a connection whose first
// request is anything else or carries a wrong token.
import { z } from 'zod';

export const BRIDGE_PROTOCOL_VERSION = 1;

/** Environment variables a server started by the extension receives. */
export const BRIDGE_ENV = {
  address: 'NOTESAPP_BRIDGE_ADDRESS',
  token: 'NOTESAPP_BRIDGE_TOKEN',
} as const;

export const BridgeMethods = {
  authenticate: 'notesapp/authenticate',
  getEditorContent: 'notesapp/getEditorContent',
  setEditorContent: 'notesapp/setEditorContent',
  insertAtCursor: 'notesapp/insertAtCursor',
} as const;

/**
 * Both sides send their BRIDGE_PROTOCOL_VERSION and their product version (`version`, the package's). A window and a
 * server of different protocol versions cannot work together: the window refuses the server (`incompatible`, with
 * its own versions as data), and a server refuses a window that answers another protocol version; either way the
 * error names both versions.
 */
export const authenticateParams = z.object({ token: z.string().min(1), protocolVersion: z.number().int(), version: z.string().optional() });
export const authenticateResult = z.object({
  ok: z.literal(true),
  protocolVersion: z.number().int(),
  version: z.string().optional(),
  workspaceFolders: z.array(z.string()),
});
/** The data of an `incompatible` error: the window's versions. */
export const incompatibleData = z.object({ protocolVersion: z.number().int(), version: z.string().optional() });

/**
 * The active text editor; `path` is relative to the window's folder that holds the document (POSIX), or null. The
 * MCP server answers its own `path`, relative to its workspace, worked out from `uri`.
 */
export const editorContent = z.object({
  content: z.string(),
  path: z.string().nullable(),
  uri: z.string(),
  languageId: z.string(),
  isDirty: z.boolean(),
  /**
   * Set, and `content` left empty, when the text is longer than the `maxLength` the request asked for: the text's
   * length (UTF-16 code units, as `content.length` would be).
   */
  omittedLength: z.number().int().nonnegative().optional(),
});
export type EditorContent = z.infer<typeof editorContent>;

/**
 * `maxLength`: the longest text, in UTF-16 code units, the server can use; a longer one is answered without its text
 * (`omittedLength`), so a large document is neither copied by the extension host nor sent. Left out by servers of
 * before it, which get the whole text.
 */
export const getEditorContentParams = z.object({ maxLength: z.number().int().nonnegative().optional() });

export const setEditorContentParams = z.object({ content: z.string() });
export const insertAtCursorParams = z.object({ content: z.string() });
export const editResult = z.object({
  applied: z.boolean(),
  path: z.string().nullable(),
  uri: z.string(),
  /** Number of cursors the text was inserted at (insertAtCursor) or 1 (setEditorContent). */
  edits: z.number().int(),
});
export type EditResult = z.infer<typeof editResult>;

/** JSON-RPC error codes the bridge answers with. */
export const BridgeErrorCodes = {
  unauthorized: -32001,
  noActiveEditor: -32002,
  editRejected: -32003,
  /** The client speaks another protocol version: authentication refused, the connection closed. */
  incompatible: -32004,
  /** The client cancelled the request (it stopped waiting) before the bridge started on it: nothing was done. */
  cancelled: -32800,
} as const;

/**
 * Discovery file for servers started by other clients: `<config dir>/bridges/<sha256(workspace folder)>.<pid>.json`,
 * mode 0600, one per window and open folder, written on activation (and when a folder is added), removed on
 * deactivate (and when the folder is removed from the window). A server picks among the files of its own
 * workspace root, so windows on other folders never cross wires; with several windows on the same folder it
 * tries the one focused most recently first (the file's modification time).
 */
export const discoveryFile = z.object({
  protocolVersion: z.number().int(),
  address: z.string(),
  token: z.string(),
  workspaceFolder: z.string(),
  pid: z.number().int().positive(),
  createdAt: z.string(),
});
export type DiscoveryFile = z.infer<typeof discoveryFile>;
