// The editor bridge server: a private local socket, token-authenticated, serving the live editor over vscode-jsonrpc.
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type * as vscode from 'vscode';
import { ErrorCodes, Message, ResponseError, type CancellationToken, type MessageConnection } from 'vscode-jsonrpc/node';
import {
  authenticateParams,
  BRIDGE_PROTOCOL_VERSION,
  BridgeErrorCodes,
  BridgeMethods,
  getEditorContentParams,
  insertAtCursorParams,
  setEditorContentParams,
} from '../../core/bridge/protocol';
import { socketPathMax } from '../../core/bridge/discovery';
import { MAX_BRIDGE_MESSAGE_BYTES, socketConnection, watchMessageSizes } from '../../core/bridge/framing';
import type { z } from 'zod';

/** What the bridge needs from VS Code; injected so the socket logic does not reach into globals. */
export interface EditorHandlers {
  /** `maxLength`: the longest text the server can use (see getEditorContentParams). */
  getEditorContent(maxLength?: number): unknown;
  /** `token` is cancelled when the client withdraws the request. */
  setEditorContent(content: string, token?: CancellationToken): Promise<unknown>;
  insertAtCursor(content: string, token?: CancellationToken): Promise<unknown>;
  workspaceFolders(): string[];
  /** The extension's version, named to a server of another protocol version. */
  version?: string;
}

export interface BridgeEndpoint {
  address: string;
  token: string;
}

/**
 * What a connection may do before it has shown the token: a client that does not authenticate cannot hold the
 * extension host's memory or sockets. An authenticate request is about 150 bytes.
 */
export interface BridgeLimits {
  /** Milliseconds a connection has to authenticate before it is closed. */
  authTimeoutMs: number;
  /** Bytes a connection may send before it has authenticated; one byte more closes it. */
  preAuthBytes: number;
  /** Connections not yet authenticated at one time; another one is closed at once. */
  maxUnauthenticated: number;
  /** Connections at one time, authenticated or not (each MCP server holds one). */
  maxConnections: number;
}

export const DEFAULT_BRIDGE_LIMITS: BridgeLimits = { authTimeoutMs: 5000, preAuthBytes: 16 * 1024, maxUnauthenticated: 8, maxConnections: 64 };

type BridgeLog = Pick<vscode.LogOutputChannel, 'info' | 'warn' | 'error' | 'debug'>;

/**
 * A request the client cancelled while it still waited in the queue (VS Code was busy) is answered "cancelled"
 * and never run: a client that stopped waiting for an edit must not have it made behind its back.
 */
function cancelledBeforeStart(message: Message) {
  if (!Message.isRequest(message)) return undefined;
  return {
    jsonrpc: '2.0',
    id: message.id,
    error: { code: BridgeErrorCodes.cancelled, message: `${message.method} was cancelled by the client before it started: nothing was done.` },
  };
}

function parseParams<T>(schema: z.ZodType<T>, params: unknown): T {
  // vscode-jsonrpc hands by-name params over as the object itself, by-position ones as an array.
  const value = Array.isArray(params) && params.length === 1 ? params[0] : params;
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ResponseError(ErrorCodes.InvalidParams, `Invalid params: ${parsed.error.message}`);
  return parsed.data;
}

function tokensMatch(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

export class BridgeServer implements vscode.Disposable {
  private readonly connections = new Set<MessageConnection>();
  private readonly sockets = new Set<net.Socket>();
  private unauthenticated = 0;
  /** Set while connections are being refused, so a flood of them logs one line, not one each. */
  private refusing = false;
  ready: Promise<void> = Promise.resolve();

  private constructor(
    private readonly server: net.Server,
    readonly endpoint: BridgeEndpoint,
    private readonly socketDir: string | undefined,
    private readonly handlers: EditorHandlers,
    private readonly log: BridgeLog,
    private readonly limits: BridgeLimits,
  ) {
    server.on('connection', (socket) => this.accept(socket));
  }

  /**
   * Listens on a Unix socket in a fresh 0700 folder, or a named pipe with a random name on Windows. The address
   * is known at once (activation stays synchronous); `ready` settles when the socket accepts connections.
   */
  static start(handlers: EditorHandlers, log: BridgeLog, limits: BridgeLimits = DEFAULT_BRIDGE_LIMITS): BridgeServer {
    const token = crypto.randomBytes(32).toString('hex');
    let address: string;
    let socketDir: string | undefined;
    if (process.platform === 'win32') {
      address = `\\\\.\\pipe\\notesapp-bridge-${crypto.randomBytes(16).toString('hex')}`;
    } else {
      // mkdtemp creates the folder 0700; chmod again in case the platform did otherwise. A TMPDIR too long for a
      // socket path (Node would cut it short, and the socket land outside the folder) gives way to /tmp.
      const fits = (base: string) => Buffer.byteLength(path.join(base, 'notesapp-bridge-XXXXXX', 'bridge.sock')) <= socketPathMax();
      const base = fits(os.tmpdir()) ? os.tmpdir() : '/tmp';
      if (base !== os.tmpdir()) log.info(`Editor bridge: the temporary folder ${os.tmpdir()} is too long for a socket path; the socket is made in ${base}`);
      socketDir = fs.mkdtempSync(path.join(base, 'notesapp-bridge-'));
      fs.chmodSync(socketDir, 0o700);
      address = path.join(socketDir, 'bridge.sock');
    }
    const server = net.createServer();
    const bridge = new BridgeServer(server, { address, token }, socketDir, handlers, log, limits);
    bridge.ready = new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      if (socketDir && Buffer.byteLength(address) > socketPathMax()) {
        reject(new Error(`the socket path is longer than the ${socketPathMax()} bytes a socket path may have`));
        return;
      }
      server.listen(address, () => {
        server.off('error', reject);
        try {
          if (socketDir) fs.chmodSync(address, 0o600);
        } catch (err) {
          // Never thrown from here, where nothing would catch it: the bridge is not offered instead.
          server.close();
          reject(err as Error);
          return;
        }
        log.info(`Editor bridge listening on ${address}`);
        resolve();
      });
    });
    bridge.ready.catch((err: Error) => log.error(`Editor bridge could not listen on ${address}: ${err.message}`));
    return bridge;
  }

  private accept(socket: net.Socket): void {
    if (this.sockets.size >= this.limits.maxConnections || this.unauthenticated >= this.limits.maxUnauthenticated) {
      if (!this.refusing) {
        this.refusing = true;
        this.log.warn(
          `Editor bridge: refusing connections (${this.sockets.size} open, ${this.unauthenticated} not authenticated; ` +
            `the limits are ${this.limits.maxConnections} and ${this.limits.maxUnauthenticated})`,
        );
      }
      socket.destroy();
      return;
    }
    this.refusing = false;
    this.sockets.add(socket);
    this.unauthenticated++;
    const connection = socketConnection(socket, { connectionStrategy: { cancelUndispatched: cancelledBeforeStart } });
    this.connections.add(connection);
    // Disposing the connection too drops the requests it still queues: a closed socket alone would let them run.
    const close = () => {
      connection.dispose();
      socket.destroy();
    };
    let authenticated = false;
    let pending = true;
    let closing = false;
    let received = 0;
    // Counts the connection out of the unauthenticated ones once, whether it authenticated or closed.
    const leavePending = () => {
      if (!pending) return;
      pending = false;
      this.unauthenticated--;
      clearTimeout(authTimer);
      socket.off('data', countBytes);
    };
    // Registered before the message reader's own listener (connection.listen() below), so a connection over the
    // budget is closed before the reader takes the chunk that crossed it.
    const countBytes = (chunk: Buffer) => {
      received += chunk.length;
      if (received <= this.limits.preAuthBytes) return;
      this.log.warn(`Editor bridge: closing a connection that sent ${received} bytes without authenticating`);
      close();
    };
    socket.on('data', countBytes);
    // Authenticated or not, no message longer than a working server sends is read into the extension host's memory.
    watchMessageSizes(socket, MAX_BRIDGE_MESSAGE_BYTES, (declared) => {
      const what = declared === undefined ? 'a message without a valid header' : `a message of ${declared} bytes, over the ${MAX_BRIDGE_MESSAGE_BYTES}-byte limit`;
      this.log.warn(`Editor bridge: closing a connection that sent ${what}`);
      close();
    });
    const authTimer = setTimeout(() => {
      this.log.warn(`Editor bridge: closing a connection that did not authenticate within ${this.limits.authTimeoutMs} ms`);
      close();
    }, this.limits.authTimeoutMs);
    // One warning and one timer per connection, however many requests it sends before it goes.
    const drop = (why: string) => {
      if (closing) return;
      closing = true;
      this.log.warn(`Editor bridge: closing a connection (${why})`);
      // Let the error response reach the client before the socket goes.
      setTimeout(close, 50);
    };
    const hello = () => ({ ok: true, protocolVersion: BRIDGE_PROTOCOL_VERSION, version: this.handlers.version, workspaceFolders: this.handlers.workspaceFolders() });
    connection.onRequest(async (method: string, params: unknown, token: CancellationToken) => {
      if (!authenticated) {
        if (method !== BridgeMethods.authenticate) {
          drop(`first request was ${method}, not ${BridgeMethods.authenticate}`);
          throw new ResponseError(BridgeErrorCodes.unauthorized, `Authenticate first with ${BridgeMethods.authenticate}.`);
        }
        const parsed = authenticateParams.safeParse(Array.isArray(params) && params.length === 1 ? params[0] : params);
        if (!parsed.success || !tokensMatch(this.endpoint.token, parsed.data.token)) {
          drop('wrong token');
          throw new ResponseError(BridgeErrorCodes.unauthorized, 'Wrong or missing bridge token.');
        }
        if (parsed.data.protocolVersion !== BRIDGE_PROTOCOL_VERSION) {
          const ours = `the Notes App extension${this.handlers.version ? ` ${this.handlers.version}` : ''} (editor bridge protocol ${BRIDGE_PROTOCOL_VERSION})`;
          const theirs = `the MCP server${parsed.data.version ? ` ${parsed.data.version}` : ''} (editor bridge protocol ${parsed.data.protocolVersion})`;
          drop(`${theirs} cannot work with ${ours}`);
          throw new ResponseError(
            BridgeErrorCodes.incompatible,
            `${theirs} cannot work with ${ours} in this VS Code window: run the MCP server of the installed extension, or update both to the same version.`,
            { protocolVersion: BRIDGE_PROTOCOL_VERSION, version: this.handlers.version },
          );
        }
        authenticated = true;
        leavePending();
        return hello();
      }
      switch (method) {
        case BridgeMethods.authenticate:
          return hello();
        case BridgeMethods.getEditorContent:
          return this.handlers.getEditorContent(parseParams(getEditorContentParams, params ?? {}).maxLength);
        case BridgeMethods.setEditorContent:
          return this.handlers.setEditorContent(parseParams(setEditorContentParams, params).content, token);
        case BridgeMethods.insertAtCursor:
          return this.handlers.insertAtCursor(parseParams(insertAtCursorParams, params).content, token);
        default:
          throw new ResponseError(ErrorCodes.MethodNotFound, `Unknown editor bridge method: ${method}`);
      }
    });
    const forget = () => {
      leavePending();
      connection.dispose();
      this.connections.delete(connection);
      this.sockets.delete(socket);
    };
    connection.onClose(forget);
    socket.on('close', forget);
    socket.on('error', (err) => this.log.debug(`Editor bridge socket error: ${err.message}`));
    connection.listen();
  }

  dispose(): void {
    for (const c of this.connections) c.dispose();
    for (const s of this.sockets) s.destroy();
    this.server.close();
    if (this.socketDir) fs.rmSync(this.socketDir, { recursive: true, force: true });
    this.log.info('Editor bridge closed');
  }
}
