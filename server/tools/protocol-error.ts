// JSON-RPC errors thrown from request handlers, whose message reaches the client once.

/**
 * The SDK sends a thrown error's `code`, `message` and `data`. Its McpError puts "MCP error <code>:" into the
 * message and the client's McpError adds it again ("MCP error -32602: MCP error -32602: ..."); this one does not.
 * `data` always holds a `details` string (the message, unless given), as every error of this server does.
 */
export class ProtocolError extends Error {
  readonly data: Record<string, unknown>;

  constructor(
    readonly code: number,
    message: string,
    data?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ProtocolError';
    this.data = { details: message, ...data };
  }
}

/** JSON-RPC / MCP error codes used by our handlers. */
export const ProtocolErrorCode = { invalidParams: -32602, resourceNotFound: -32002 } as const;
