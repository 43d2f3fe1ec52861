// Client of the editor bridge: reaches the live VS Code editor over the extension's local socket (vscode-jsonrpc).
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CancellationTokenSource, ConnectionError, ErrorCodes, ResponseError, type MessageConnection } from 'vscode-jsonrpc/node';
import type { z } from 'zod';
import { bridgeAddressProblem, discoveryDir, discoveryDirProblem, discoveryFileNames, folderHolds, processAlive, readDiscoveryFile } from '../src/core/bridge/discovery';
import { MAX_BRIDGE_MESSAGE_BYTES, socketConnection, watchMessageSizes } from '../src/core/bridge/framing';
import {
  authenticateResult,
  BRIDGE_ENV,
  BRIDGE_PROTOCOL_VERSION,
  BridgeErrorCodes,
  BridgeMethods,
  discoveryFile,
  editorContent,
  editResult,
  incompatibleData,
  type EditorContent,
  type EditResult,
} from '../src/core/bridge/protocol';
import { NotesError } from '../src/core/errors';
import { SERVER_VERSION } from './version';

export interface EditorBridgeOptions {
  workspaceRoot: string;
  /** Folder holding config.json; the discovery file lives under it. */
  configDir: string;
  env?: NodeJS.ProcessEnv;
  connectTimeoutMs?: number;
  requestTimeoutMs?: number;
}

const NOT_ATTACHED =
  'No VS Code editor is attached: open this workspace in VS Code with the Notes App extension running, then try again.';

/** A window of another editor bridge protocol version: it cannot be driven, whatever is tried. */
function incompatible(address: string, window: { protocolVersion: number; version?: string }): NotesError {
  return new NotesError(
    'NO_EDITOR',
    `This MCP server ${SERVER_VERSION} (editor bridge protocol ${BRIDGE_PROTOCOL_VERSION}) cannot work with the Notes App extension` +
      `${window.version ? ` ${window.version}` : ''} (editor bridge protocol ${window.protocolVersion}) of the VS Code window at ${address}: ` +
      'run the MCP server of the installed extension (its "Copy MCP Client Configuration" command gives the command line), or update both to the same version.',
  );
}

/** How long a connection no call uses any more stays open after its last call has its answer. */
const RETIRED_CLOSE_DELAY_MS = 1000;

/** Bytes a bridge may send before it has answered authentication (the answer takes a few hundred). */
const PRE_AUTH_BYTES = 1024 * 1024;

interface Endpoint {
  address: string;
  token: string;
  source: string;
  /** Found through a discovery file (else given in the environment by the window that started the server). */
  discovered: boolean;
}

export class EditorBridgeClient {
  private connection: MessageConnection | undefined;
  private socket: net.Socket | undefined;
  /** The connection being opened: calls made meanwhile wait for it instead of opening sockets of their own. */
  private connecting: Promise<MessageConnection> | undefined;
  /** Where `connection` leads. */
  private inUse: Endpoint | undefined;
  /** Calls waiting on each connection. */
  private readonly pending = new Map<MessageConnection, number>();
  /** Connections no new call uses, each closed by its function once its calls have their answers. */
  private readonly retired = new Map<MessageConnection, () => void>();
  /** Connections closed for a message over MAX_BRIDGE_MESSAGE_BYTES: the length its header declared (undefined: no header). */
  private readonly oversized = new WeakMap<MessageConnection, number | undefined>();

  constructor(private readonly options: EditorBridgeOptions) {}

  /** `maxLength`: the longest text the caller can use; a longer one comes without its text (`omittedLength`). */
  getEditorContent(maxLength?: number): Promise<EditorContent> {
    return this.request(BridgeMethods.getEditorContent, maxLength === undefined ? {} : { maxLength }, editorContent);
  }

  setEditorContent(content: string): Promise<EditResult> {
    return this.request(BridgeMethods.setEditorContent, { content }, editResult);
  }

  insertAtCursor(content: string): Promise<EditResult> {
    return this.request(BridgeMethods.insertAtCursor, { content }, editResult);
  }

  dispose(): void {
    for (const close of [...this.retired.values()]) close();
    this.connection?.dispose();
    this.socket?.destroy();
    this.connection = undefined;
    this.socket = undefined;
  }

  /**
   * Stops using the connection for new calls (they look for the editor again) but lets the calls waiting on it have
   * their answers: the window is still there, and an edit it is making is not reported lost. Closed once they have.
   */
  private retire(): void {
    const { connection, socket } = this;
    if (!connection || !socket) return;
    this.connection = undefined;
    this.socket = undefined;
    const close = () => {
      this.retired.delete(connection);
      // A moment later: a request withdrawn just now still has its cancellation to write on it.
      setTimeout(() => {
        connection.dispose();
        socket.destroy();
      }, RETIRED_CLOSE_DELAY_MS).unref();
    };
    if ((this.pending.get(connection) ?? 0) === 0) close();
    else this.retired.set(connection, close);
  }

  /** What closed `connection` for its size, in words, or undefined when that is not what closed it. */
  private oversizedMessage(connection: MessageConnection): string | undefined {
    if (!this.oversized.has(connection)) return undefined;
    const declared = this.oversized.get(connection);
    return declared === undefined
      ? 'a message without a valid header'
      : `a message of ${declared} bytes, over the ${MAX_BRIDGE_MESSAGE_BYTES} bytes the editor bridge takes in one message`;
  }

  /**
   * Where to connect, best first. The environment wins (servers the extension starts); else the discovery files of
   * this workspace, one per window that has it open: windows whose process still runs first, the one focused most
   * recently (the file's modification time) first among them.
   */
  private endpoints(): Endpoint[] {
    const env = this.options.env ?? process.env;
    const address = env[BRIDGE_ENV.address];
    const token = env[BRIDGE_ENV.token];
    if (address && token) return [{ address, token, source: `${BRIDGE_ENV.address}`, discovered: false }];
    const dir = discoveryDir(this.options.configDir);
    let names: string[];
    try {
      names = discoveryFileNames(fs.readdirSync(dir), this.options.workspaceRoot);
    } catch {
      names = [];
    }
    if (names.length === 0) {
      throw new NotesError('NO_EDITOR', `${NOT_ATTACHED} (no bridge address in the environment and no discovery file for this workspace in ${dir})`);
    }
    let folder: ReturnType<typeof discoveryDirProblem>;
    try {
      folder = discoveryDirProblem(dir);
    } catch (err) {
      folder = { why: `unreadable (${(err as Error).message})`, fixable: false };
    }
    if (folder) {
      const remedy = folder.fixable
        ? 'the extension makes it private (0700) when it writes its file there'
        : 'remove it, and the extension makes a private one of its own';
      throw new NotesError('NO_EDITOR', `${NOT_ATTACHED} (the discovery folder ${dir} is ${folder.why}, so none of its files is taken; ${remedy})`);
    }
    const found: Array<Endpoint & { alive: boolean; mtime: number }> = [];
    const refused: string[] = [];
    for (const name of names) {
      const file = path.join(dir, name);
      try {
        const mtime = fs.statSync(file).mtimeMs;
        const read = readDiscoveryFile(file);
        if ('refused' in read) {
          refused.push(`${name}: ${read.refused}`);
          continue;
        }
        const parsed = discoveryFile.safeParse(JSON.parse(read.text));
        if (parsed.success) {
          found.push({ address: parsed.data.address, token: parsed.data.token, source: file, discovered: true, alive: processAlive(parsed.data.pid), mtime });
        }
      } catch {
        // Removed meanwhile, or not JSON: not a window to reach.
      }
    }
    if (found.length === 0) {
      const why = refused.length ? `; not taken: ${refused.join('; ')}` : '';
      throw new NotesError('NO_EDITOR', `${NOT_ATTACHED} (the discovery files ${names.join(', ')} in ${dir} are not valid${why})`);
    }
    return found.sort((a, b) => Number(b.alive) - Number(a.alive) || b.mtime - a.mtime);
  }

  private withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => NotesError): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(onTimeout()), ms);
    });
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
  }

  private connect(): Promise<MessageConnection> {
    if (this.connection) return Promise.resolve(this.connection);
    this.connecting ??= this.open().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  /** Tries each endpoint in turn; when none answers, the error names the first one's reason. */
  private async open(): Promise<MessageConnection> {
    const endpoints = this.endpoints();
    // Windows that accept and never answer cost the connect timeout each: past a few, the call is not kept waiting
    // (the server's own 30 s timeout would answer it otherwise, with no word of the editor).
    const budget = 2.5 * (this.options.connectTimeoutMs ?? 2000);
    const started = Date.now();
    let first: NotesError | undefined;
    let tried = 0;
    for (const endpoint of endpoints) {
      if (tried > 0 && Date.now() - started >= budget) break;
      tried++;
      try {
        return await this.openOne(endpoint);
      } catch (err) {
        first ??= err as NotesError;
      }
    }
    if (tried > 1 && first) first.message += ` (and ${tried - 1} more VS Code window(s) with this workspace did not answer either)`;
    if (tried < endpoints.length && first) first.message += ` (${endpoints.length - tried} more not tried: ${Math.round(budget)} ms were spent)`;
    throw first;
  }

  private async openOne(endpoint: Endpoint): Promise<MessageConnection> {
    const connectTimeout = this.options.connectTimeoutMs ?? 2000;
    const problem = bridgeAddressProblem(endpoint.address);
    if (problem) throw new NotesError('NO_EDITOR', `${NOT_ATTACHED} (the bridge address ${endpoint.address} ${problem})`);
    const socket = net.connect(endpoint.address);
    try {
      await this.withTimeout(
        new Promise<void>((resolve, reject) => {
          socket.once('connect', resolve);
          socket.once('error', reject);
        }),
        connectTimeout,
        () => new NotesError('NO_EDITOR', `${NOT_ATTACHED} (the bridge at ${endpoint.address} did not answer within ${connectTimeout} ms)`),
      );
    } catch (err) {
      socket.destroy();
      if (err instanceof NotesError) throw err;
      throw new NotesError('NO_EDITOR', `${NOT_ATTACHED} (cannot connect to ${endpoint.address}: ${(err as Error).message})`);
    }
    const connection = socketConnection(socket);
    let forgotten = false;
    const forget = () => {
      if (this.connection === connection) {
        this.connection = undefined;
        this.socket = undefined;
      }
      // Requests still waiting on it fail at once ("connection lost") instead of at their timeout.
      if (!forgotten) {
        forgotten = true;
        connection.dispose();
        socket.destroy();
      }
    };
    connection.onClose(forget);
    connection.onError(forget);
    socket.on('close', forget);
    socket.on('error', forget);
    // Until the bridge has shown itself a window of VS Code, it may send no more than an answer to authenticate
    // takes: any socket named by a discovery file or the environment could otherwise fill this process's memory.
    let preAuth = 0;
    let overBudget = false;
    const countPreAuth = (chunk: Buffer) => {
      preAuth += chunk.length;
      if (preAuth > PRE_AUTH_BYTES) {
        overBudget = true;
        forget();
      }
    };
    socket.on('data', countPreAuth);
    // Authenticated or not, a message longer than a working window sends (an extension of before `maxLength`, asked
    // for a 200 MB document) is not read into memory: the connection is closed at its header.
    watchMessageSizes(socket, MAX_BRIDGE_MESSAGE_BYTES, (declared) => {
      this.oversized.set(connection, declared);
      forget();
    });
    connection.listen();
    let folders: string[];
    try {
      const result = await this.withTimeout(
        connection.sendRequest(BridgeMethods.authenticate, { token: endpoint.token, protocolVersion: BRIDGE_PROTOCOL_VERSION, version: SERVER_VERSION }),
        connectTimeout,
        () => new NotesError('NO_EDITOR', `${NOT_ATTACHED} (the bridge did not answer authentication within ${connectTimeout} ms)`),
      );
      // The version is read before the rest: another protocol version may answer in another shape.
      const window = incompatibleData.safeParse(result);
      if (window.success && window.data.protocolVersion !== BRIDGE_PROTOCOL_VERSION) throw incompatible(endpoint.address, window.data);
      folders = authenticateResult.parse(result).workspaceFolders;
      socket.off('data', countPreAuth);
    } catch (err) {
      forget();
      const oversized = this.oversizedMessage(connection);
      if (oversized) throw new NotesError('NO_EDITOR', `${NOT_ATTACHED} (the bridge at ${endpoint.address} sent ${oversized} before authenticating: it is no VS Code window)`);
      if (overBudget) {
        throw new NotesError('NO_EDITOR', `${NOT_ATTACHED} (the bridge at ${endpoint.address} sent more than ${PRE_AUTH_BYTES} bytes before authenticating: it is no VS Code window)`);
      }
      if (err instanceof NotesError) throw err;
      if (err instanceof ResponseError && err.code === BridgeErrorCodes.unauthorized) {
        throw new NotesError('NO_EDITOR', `${NOT_ATTACHED} (the editor bridge refused the token from ${endpoint.source})`);
      }
      if (err instanceof ResponseError && err.code === BridgeErrorCodes.incompatible) {
        const window = incompatibleData.safeParse(err.data);
        if (window.success) throw incompatible(endpoint.address, window.data);
      }
      throw new NotesError('NO_EDITOR', `${NOT_ATTACHED} (authentication failed: ${(err as Error).message})`);
    }
    // A window found through a discovery file that no longer has this workspace open (a folder removed from it) is
    // not the editor to drive. The window that started this server (the environment) is, even with no folder open.
    const root = path.resolve(this.options.workspaceRoot);
    if (endpoint.discovered && !folders.some((folder) => folderHolds(folder, root))) {
      forget();
      throw new NotesError(
        'NO_EDITOR',
        `${NOT_ATTACHED} (the VS Code window at ${endpoint.address} has ${folders.length ? folders.join(', ') : 'no folder'} open, not ${root})`,
      );
    }
    this.connection = connection;
    this.socket = socket;
    this.inUse = endpoint;
    return connection;
  }

  private async request<T extends { uri: string; path: string | null }>(method: string, params: object, schema: z.ZodType<T>, again = false): Promise<T> {
    // A window found through its discovery file that has removed it since (the workspace left the window) is no
    // longer the editor to drive: the next call looks again (one stat per call).
    if (this.connection && this.inUse?.discovered && !fs.existsSync(this.inUse.source)) this.retire();
    const connection = await this.connect();
    this.pending.set(connection, (this.pending.get(connection) ?? 0) + 1);
    const timeout = this.options.requestTimeoutMs ?? 10000;
    let result: unknown;
    let retry = false;
    const edits = method !== BridgeMethods.getEditorContent;
    // On timeout the request is cancelled: VS Code drops it if it has not started on it yet.
    const cancel = new CancellationTokenSource();
    try {
      result = await this.withTimeout(
        connection.sendRequest(method, params, cancel.token),
        timeout,
        // The other requests on the connection stay: they may still be answered there. New calls open another
        // connection, and this one closes once those have their answers: the request timed out is withdrawn, but the
        // connection would keep what it sent (5 MB for a large edit) until an answer that may never come.
        () => {
          cancel.cancel();
          if (this.connection === connection) this.retire();
          return new NotesError(
            'NO_EDITOR',
            `VS Code did not answer ${method} within ${timeout} ms.` +
              (edits
                ? ' The request was withdrawn, but if VS Code had already started on it the edit may still be made: read the editor (get_editor_content) before trying again.'
                : ''),
          );
        },
      );
    } catch (err) {
      if (err instanceof NotesError) throw err;
      if (this.oversized.has(connection)) {
        const declared = this.oversized.get(connection);
        // The message may be the answer to another call made at the same time: every call waiting is told.
        const closed = `The connection to VS Code was closed: while ${method} waited for its answer, VS Code sent ${this.oversizedMessage(connection)} (the answer to this call or to another one made at the same time), and nothing of it was read.`;
        if (edits) throw new NotesError('INTERNAL', `${closed} The edit may or may not have been made: read the editor before trying again.`);
        if (declared === undefined) throw new NotesError('INTERNAL', closed);
        throw new NotesError(
          'FILE_TOO_LARGE',
          `${closed} If that was the document in the editor, it is too large to send whole: read its saved file in pieces with read_file and its offset and length arguments, or update the Notes App extension, which sends only what can be answered.`,
        );
      }
      const lost = (why: string) =>
        new NotesError(
          'NO_EDITOR',
          `${NOT_ATTACHED} (the connection was lost: ${why})` + (edits ? ' The edit may or may not have been made: read the editor before trying again.' : ''),
        );
      if (err instanceof ResponseError) {
        if (err.code === BridgeErrorCodes.noActiveEditor) throw new NotesError('NO_EDITOR', `VS Code has no active text editor: ${err.message}`);
        if (err.code === BridgeErrorCodes.editRejected) throw new NotesError('INTERNAL', `VS Code rejected the edit: ${err.message}`);
        // vscode-jsonrpc's own: the connection closed or was disposed while the request waited. The window may be
        // reloading, or may have closed the connection just as this call came: a read is made once more, on
        // whatever connection a new look for the window gives. An edit may have been made, and is not.
        if (err.code === ErrorCodes.PendingResponseRejected || err.code === ErrorCodes.ConnectionInactive) {
          if (again || edits) throw lost(err.message);
          retry = true;
        } else throw new NotesError('INTERNAL', `The editor bridge answered an error: ${err.message}`);
      } else if (err instanceof ConnectionError && !again) {
        // The connection was closed before the request could be sent: nothing was sent, so any call is made again.
        retry = true;
      } else {
        this.dispose();
        throw lost((err as Error).message);
      }
    } finally {
      cancel.dispose();
      const left = (this.pending.get(connection) ?? 1) - 1;
      if (left > 0) this.pending.set(connection, left);
      else {
        this.pending.delete(connection);
        this.retired.get(connection)?.();
      }
    }
    if (retry) {
      if (this.connection === connection) this.retire();
      return this.request(method, params, schema, true);
    }
    const parsed = schema.safeParse(result);
    if (!parsed.success) throw new NotesError('INTERNAL', `The editor bridge answered ${method} with an unexpected shape: ${parsed.error.message}`);
    return { ...parsed.data, path: this.workspacePath(parsed.data.uri) };
  }

  /**
   * The document's path relative to this server's workspace, or null outside it. The window gives a path relative
   * to the folder of its own that holds the document: another folder of a multi-root window, or one nested in this
   * workspace, where the same path names some other file here.
   */
  private workspacePath(uri: string): string | null {
    let file: string;
    try {
      const url = new URL(uri);
      if (url.protocol !== 'file:') return null;
      file = path.resolve(fileURLToPath(url));
    } catch {
      return null;
    }
    const root = path.resolve(this.options.workspaceRoot);
    if (file === root || !folderHolds(root, file)) return null;
    // folderHolds compares as the platform does (letter case aside on Windows and macOS): the part past the root.
    return file.slice(root.length).replace(/^[\\/]+/, '').split(path.sep).join('/');
  }
}
