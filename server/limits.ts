// The spec's server limits (section 8): request rate, operation timeout, payload size, and their error codes.

/** Limits in force; the defaults are the spec's, raised only by benchmark flags. */
export interface ServerLimits {
  /** Requests accepted per window (spec: 100 per minute). */
  rateLimit: number;
  /** Length of the rate window in milliseconds (60 000; shortened only by test hooks). */
  rateWindowMs: number;
  /** Time an operation may run before it is aborted and answered with a timeout error (spec: 30 s). */
  timeoutMs: number;
  /** Largest message accepted or sent, in bytes (spec: 10 MB, read as 10 MiB like maxFileSize). */
  maxPayloadBytes: number;
}

export const DEFAULT_LIMITS: Readonly<ServerLimits> = Object.freeze({
  rateLimit: 100,
  rateWindowMs: 60_000,
  timeoutMs: 30_000,
  maxPayloadBytes: 10 * 1024 * 1024,
});

/**
 * Room every line the server sends leaves under the payload limit. The MCP TypeScript SDK's stdio client closes the
 * connection (and so stops the server) once its read buffer passes 10 MiB, and that buffer holds a whole line plus
 * what came with its end in the same read: its newline and the start of the next message, up to Node's 64 KiB reads.
 */
export const SEND_HEADROOM_BYTES = 64 * 1024;

/** Room in a reply for all but a tool's answer and the request id: the JSON-RPC envelope and the content wrapper. */
export const REPLY_ROOM = 1024;

/** The largest line the server sends (its newline aside): the payload limit less SEND_HEADROOM_BYTES. */
export function maxSendBytes(limits: Pick<ServerLimits, 'maxPayloadBytes'>): number {
  return limits.maxPayloadBytes - SEND_HEADROOM_BYTES;
}

/**
 * Our server-error codes (JSON-RPC reserves -32000..-32099 for them). -32000 is left to the SDK's
 * "connection closed" and -32002 to MCP's "resource not found" convention.
 */
export const ServerErrorCode = Object.freeze({
  /** The operation ran past the timeout and was aborted. Same number as the SDK's RequestTimeout. */
  Timeout: -32001,
  /** More requests than the rate limit allows in the current window. */
  RateLimited: -32003,
  /** An incoming message is larger than the payload limit. */
  PayloadTooLarge: -32004,
  /** A result would be larger than the payload limit. */
  ResultTooLarge: -32005,
});

export interface JsonRpcErrorBody {
  code: number;
  message: string;
  data?: Record<string, unknown>;
}

export function rateLimitedError(limits: ServerLimits, retryAfterMs: number): JsonRpcErrorBody {
  const details = `At most ${limits.rateLimit} requests per ${formatMs(limits.rateWindowMs)} are accepted; retry in ${formatMs(retryAfterMs)}.`;
  return {
    code: ServerErrorCode.RateLimited,
    message: `Rate limit exceeded. ${details}`,
    data: { details, limit: limits.rateLimit, windowMs: limits.rateWindowMs, retryAfterMs },
  };
}

export function timeoutError(limits: ServerLimits, method: string): JsonRpcErrorBody {
  const details = `The ${method} operation took longer than ${formatMs(limits.timeoutMs)} and was cancelled; nothing more will be done for it.`;
  return {
    code: ServerErrorCode.Timeout,
    message: `Operation timed out. ${details}`,
    data: { details, method, timeoutMs: limits.timeoutMs },
  };
}

export function payloadTooLargeError(limits: ServerLimits, receivedBytes: number): JsonRpcErrorBody {
  const details = `The message is at least ${receivedBytes} bytes; the limit is ${limits.maxPayloadBytes} bytes. Send large content in smaller pieces.`;
  return {
    code: ServerErrorCode.PayloadTooLarge,
    message: `Payload too large. ${details}`,
    data: { details, limitBytes: limits.maxPayloadBytes, receivedBytes },
  };
}

/**
 * `method`: the request's. A prompt (prompts/get) carries its note whole and has no ranges: what helps there is
 * another way to the note, not read_file's arguments.
 */
export function resultTooLargeError(limits: ServerLimits, resultBytes: number, method?: string): JsonRpcErrorBody {
  const limitBytes = maxSendBytes(limits);
  const advice =
    method === 'prompts/get'
      ? 'A prompt carries its note whole, so this note is too large for one: split it into smaller notes, or have the assistant read it with the read_file tool in ranges (offset and length) instead of using the prompt.'
      : 'Read the file in ranges with read_file and its offset and length arguments, or narrow the request.';
  const details = `The result would be ${resultBytes} bytes; the limit is ${limitBytes} bytes. ${advice}`;
  return {
    code: ServerErrorCode.ResultTooLarge,
    message: `Result too large. ${details}`,
    data: { details, limitBytes, resultBytes },
  };
}

function formatMs(ms: number): string {
  if (ms % 60_000 === 0 && ms >= 60_000) return ms === 60_000 ? 'minute' : `${ms / 60_000} minutes`;
  if (ms >= 1000) return `${Math.round(ms / 100) / 10} s`;
  return `${ms} ms`;
}

/**
 * Sliding-window rate limiter: a request is accepted when fewer than `limit` were accepted in the last window.
 * The clock is injectable so that tests need not wait a minute.
 */
export class RateLimiter {
  private readonly accepted: number[] = [];

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records the request when allowed; otherwise says how long until a slot frees up. */
  take(): { ok: true } | { ok: false; retryAfterMs: number } {
    const t = this.now();
    while (this.accepted.length > 0 && this.accepted[0] <= t - this.windowMs) this.accepted.shift();
    if (this.accepted.length < this.limit) {
      this.accepted.push(t);
      return { ok: true };
    }
    return { ok: false, retryAfterMs: Math.max(1, this.accepted[0] + this.windowMs - t) };
  }
}

/** Node's timers hold at most 2^31-1 ms (about 24.8 days); a longer delay fires after 1 ms instead. */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * Limits from the command line (`--rate-limit N`, `--timeout-ms N`, for benchmarks) and, with test hooks on,
 * NOTESAPP_TEST_RATE_WINDOW_MS so a test need not wait a minute. Throws a message for a bad value.
 */
export function limitsFromFlags(
  flags: { 'rate-limit'?: string; 'timeout-ms'?: string },
  env: NodeJS.ProcessEnv,
  testHooks: boolean,
): ServerLimits {
  const positive = (name: string, text: string | undefined, fallback: number, max = Number.MAX_SAFE_INTEGER): number => {
    if (text === undefined) return fallback;
    const n = Number(text);
    if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`${name} must be a positive whole number, got "${text}"`);
    if (n > max) throw new Error(`${name} must be at most ${max}, got "${text}"`);
    return n;
  };
  return {
    ...DEFAULT_LIMITS,
    rateLimit: positive('--rate-limit', flags['rate-limit'], DEFAULT_LIMITS.rateLimit),
    timeoutMs: positive('--timeout-ms', flags['timeout-ms'], DEFAULT_LIMITS.timeoutMs, MAX_TIMER_MS),
    rateWindowMs: testHooks
      ? positive('NOTESAPP_TEST_RATE_WINDOW_MS', env.NOTESAPP_TEST_RATE_WINDOW_MS, DEFAULT_LIMITS.rateWindowMs, MAX_TIMER_MS)
      : DEFAULT_LIMITS.rateWindowMs,
  };
}
