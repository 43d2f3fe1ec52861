// JSON-RPC errors thrown from request handlers, whose message reaches the client once.

/**
 * The SDK sends a thrown error's `code`, `message` and `data`. Its McpError puts "MCP error <code>:" into the
 * message and the client's McpError adds it again ("MCP error -32602: MCP error -32602: ..."); this one does not.
 */
export class ProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ProtocolError';
  }
}

/** JSON-RPC / MCP error codes used by our handlers. */
export const ProtocolErrorCode = { invalidParams: -32602, resourceNotFound: -32002 } as const;
