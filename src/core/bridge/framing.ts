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

/**
 * The largest message a bridge connection takes once it has authenticated, in bytes. The largest a working peer
 * sends is the editor's text as `getEditorContent` answers it: at most the length the server asks for (under 5.3
 * million UTF-16 code units, half the MCP reply limit), which JSON writes in at most 6 bytes each (`\u001f`), 32 MB
 * in all. A peer that sends more (an extension of before that length was asked for, answering with a 200 MB log
 * file) would otherwise have it read into memory whole, only for the answer to be refused.
 */
export const MAX_BRIDGE_MESSAGE_BYTES = 64 * 1024 * 1024;

/** A message's header is `Content-Length: N\r\n` and perhaps `Content-Type: …\r\n`: past this, it is no header. */
const MAX_HEADER_BYTES = 8 * 1024;

/**
 * Reads the header of each message arriving on `socket` and calls `over` once, with the length the message
 * declares, for the first one longer than `max` (or a header that is no header: `over` gets undefined), before its
 * body has arrived. Registered before the connection listens, it sees each chunk before the message reader does,
 * so the caller can close the socket after at most one chunk of such a message was read. Returns a function that
 * stops watching.
 */
export function watchMessageSizes(socket: net.Socket, max: number, over: (declared: number | undefined) => void): () => void {
  let header = '';
  let body = 0;
  let done = false;
  const onData = (chunk: Buffer) => {
    let at = 0;
    while (!done && at < chunk.length) {
      if (body > 0) {
        const take = Math.min(body, chunk.length - at);
        body -= take;
        at += take;
        continue;
      }
      const end = chunk.indexOf('\r\n\r\n', at, 'latin1');
      // A header split between chunks: its start is kept (the separator itself may be split too).
      const piece = chunk.toString('latin1', at, end === -1 ? chunk.length : end + 4);
      header += piece;
      at += piece.length;
      const complete = header.indexOf('\r\n\r\n');
      if (complete === -1) {
        if (header.length > MAX_HEADER_BYTES) finish(undefined);
        continue;
      }
      // What followed the separator in `header` (when the separator was split between chunks) is body.
      const extra = header.length - (complete + 4);
      const length = /(?:^|\r\n)content-length:[ \t]*(\d+)[ \t]*(?:\r\n|$)/i.exec(header.slice(0, complete))?.[1];
      header = '';
      if (length === undefined) {
        finish(undefined);
        break;
      }
      const declared = Number(length);
      if (declared > max) {
        finish(declared);
        break;
      }
      body = declared;
      const fromExtra = Math.min(body, extra);
      body -= fromExtra;
      at -= extra - fromExtra;
    }
  };
  const finish = (declared: number | undefined) => {
    done = true;
    socket.off('data', onData);
    over(declared);
  };
  socket.on('data', onData);
  return () => {
    done = true;
    socket.off('data', onData);
  };
}
