// The bridge's message connection over a socket (vscode-jsonrpc framing), shared by the extension and the server.
import type net from 'node:net';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type ConnectionOptions, type MessageConnection } from 'vscode-jsonrpc/node';

/**
 * vscode-jsonrpc's reader warns about a message still partial every 10 s, and keeps doing so after the socket has
 * closed: a connection dropped mid-message would leave a timer running for as long as the process lives (and
 * keep a process that should end alive). The bridge has no use for the warning, so it is off.
 */
export function socketConnection(socket: net.Socket, options?: ConnectionOptions): MessageConnection {
  const reader = new StreamMessageReader(socket);
  reader.partialMessageTimeout = 0;
  return createMessageConnection(reader, new StreamMessageWriter(socket), undefined, options);
}
