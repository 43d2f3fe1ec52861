// The bridge's message connection over a socket (vscode-jsonrpc framing), shared by the extension and the server.
import type net from 'node:net';
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type ConnectionOptions,
  type Message,
  type MessageConnection,
} from 'vscode-jsonrpc/node';

/**
 * A writer whose `write` never rejects: a failed write is reported through `onError` instead.
 *
 * vscode-jsonrpc's `sendRequest` rethrows a failed write from inside a Promise executor, where no caller can catch
 * it: an unhandled rejection, which ends the process. A peer that closes the socket just as a request is written
 * (VS Code's bridge closes connections over its limits as soon as it accepts them, a window closing does the same)
 * would take the MCP server down with it. Reported as an error of the connection, the failure reaches the
 * connection's owner, which closes it and so fails the requests waiting on it.
 */
function makeReportingWriter() {
  return class ReportingMessageWriter extends StreamMessageWriter {
    override async write(msg: Message): Promise<void> {
      try {
        await super.write(msg);
      } catch (error) {
        this.fireError(error, msg);
      }
    }
  };
}

/**
 * Made on first use: a class that extends StreamMessageWriter reads vscode-jsonrpc when it is defined, and the
 * server bundle runs that package only when the bridge is first used (see server/lazy-modules.mjs).
 */
let ReportingMessageWriter: ReturnType<typeof makeReportingWriter> | undefined;

/**
 * vscode-jsonrpc's reader warns about a message still partial every 10 s, and keeps doing so after the socket has
 * closed: a connection dropped mid-message would leave a timer running for as long as the process lives (and
 * keep a process that should end alive). The bridge has no use for the warning, so it is off.
 */
export function socketConnection(socket: net.Socket, options?: ConnectionOptions): MessageConnection {
  const reader = new StreamMessageReader(socket);
  reader.partialMessageTimeout = 0;
  ReportingMessageWriter ??= makeReportingWriter();
  return createMessageConnection(reader, new ReportingMessageWriter(socket), undefined, options);
}
