// The stdio transport with the spec's guarantees: every bad line gets a JSON-RPC error, limits are enforced, the
// connection survives everything. Reading and writing are ours: each message is serialised once, as one line.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  CancelledNotificationSchema,
  CancelTaskRequestSchema,
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  InitializeRequestSchema,
  JSONRPCMessageSchema,
  JSONRPCRequestSchema,
  LATEST_PROTOCOL_VERSION,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListTasksRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  UnsubscribeRequestSchema,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import type { Readable, Writable } from 'node:stream';
import type { ZodType } from 'zod';
import { isPlainObject } from '../src/core/config/merge';
import { LineReader, type LineEvent } from './line-reader';
import {
  maxSendBytes,
  payloadTooLargeError,
  RateLimiter,
  rateLimitedError,
  resultTooLargeError,
  timeoutError,
  type JsonRpcErrorBody,
  type ServerLimits,
} from './limits';
import type { LogFn } from './logger';
import { perProcessValue } from './per-process';
import { dropEncodedAnswer, hasEncodedAnswer, isEncodedAnswerText, structuredPlaceholder, takeRegistered, textBlockOf, textPlaceholder, type EncodedAnswer } from './structured-json';

type RequestId = string | number;

/**
 * What the SDK is told a request with id 0 is called. The SDK ignores a cancellation naming a falsy id, so a
 * request with id 0 that timed out or was cancelled would run on, and its late reply would answer a new request
 * that reuses id 0. The client never sees this id: replies carry 0 again. Unique to the process (its id and the
 * moment it first needed the alias, in nanoseconds); not random bytes: the SDK's clients number their requests from
 * 0, so the handshake itself needs the alias, and node:crypto took 4-6 ms to load there. A client could only meet
 * it by sending this very string as an id, and would then get its own reply under id 0.
 */
const ZERO_ID_ALIAS = perProcessValue(() => `notesapp-request-0-${process.pid}-${process.hrtime.bigint()}`);

/** The id the client gave a request, from the id the SDK knows it by (see ZERO_ID_ALIAS). */
export function clientRequestId(id: RequestId): RequestId {
  return id === ZERO_ID_ALIAS.peek() ? 0 : id;
}

/** The id the SDK knows a request by. */
function sdkRequestId(id: RequestId): RequestId {
  return id === 0 ? ZERO_ID_ALIAS.get() : id;
}

/**
 * MCP 2025-03-26 let a client send a JSON-RPC batch (an array of messages on one line) and required servers to take
 * it; 2025-06-18 removed batches. A client that negotiated 2025-03-26 may send them; any other gets -32600.
 */
export const BATCH_PROTOCOL_VERSION = '2025-03-26';
/** Most messages one batch may hold: the requests of a batch count toward the rate limit (100 a minute) one by one. */
export const MAX_BATCH_MESSAGES = 100;

/** A batch being answered: the reply to each of its requests, in the batch's order, until all have one. */
interface Batch {
  /** Replies by position in the batch (notifications and cancelled requests have none). */
  readonly replies: Array<BatchReply | undefined>;
  /** Messages of the batch not handled yet. */
  unhandled: number;
  /** Requests handed to the server and not answered yet. */
  running: number;
}

interface BatchReply {
  id: RequestId | null;
  /** The reply's JSON, without the line's newline. */
  parts: Uint8Array[];
  size: number;
  method?: string;
}

/** Where the reply to a message of a batch goes. */
interface BatchSlot {
  batch: Batch;
  index: number;
}

/** What is read from stdin, and the messages of a batch, each handled in turn. */
type InputEvent = LineEvent | { kind: 'item'; value: unknown; slot: BatchSlot };

const PAUSE_WRITES = 1024;
const RESUME_WRITES = 256;

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * A tool result whose text was registered (see structured-json.ts): with `answer`, the text's bytes, written in its
 * place; without, the text is its structuredContent's JSON, written in place of that. Otherwise undefined.
 */
function registeredOf(message: JSONRPCMessage): { result: Record<string, unknown>; json: string; answer?: EncodedAnswer } | undefined {
  const result = 'result' in message ? (message.result as Record<string, unknown>) : undefined;
  const text = textBlockOf(result);
  if (!result || text === undefined) return undefined;
  const taken = takeRegistered(text);
  if (!taken || (!taken.answer && result.structuredContent === undefined)) return undefined;
  return { result, json: text, answer: taken.answer };
}

/**
 * One message as the line written: its JSON, then a newline, in UTF-8. The parts are encoded straight into one
 * buffer, sized for the worst case (three bytes a UTF-16 unit) instead of measured first: measuring took as long as
 * encoding. (JSON.stringify escapes lone surrogates, so every part is valid Unicode.)
 */
export function encodeLine(message: JSONRPCMessage): Buffer {
  const parts = encodeParts(message);
  return parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts);
}

/**
 * The line for `message` in the pieces it is written in: one buffer, or for an answer made as bytes (see
 * encodedLine) the envelope's pieces around the answer's own buffers, which are not copied into another.
 */
function encodeParts(message: JSONRPCMessage): Uint8Array[] {
  const registered = registeredOf(message);
  if (registered?.answer) return encodedLine(message, registered.result, registered.answer);
  let parts: string[];
  if (registered) {
    const placeholder = structuredPlaceholder();
    const placeholderJson = JSON.stringify(placeholder);
    const json = JSON.stringify({ ...message, result: { ...registered.result, structuredContent: placeholder } });
    const at = json.indexOf(placeholderJson);
    parts = [json.slice(0, at), registered.json, json.slice(at + placeholderJson.length)];
  } else parts = [JSON.stringify(message)];
  let units = 1;
  for (const part of parts) units += part.length;
  const buffer = Buffer.allocUnsafe(units * 3);
  let bytes = 0;
  for (const part of parts) bytes += buffer.write(part, bytes, 'utf8');
  buffer[bytes] = 0x0a;
  return [buffer.subarray(0, bytes + 1)];
}

/**
 * The line for a reply whose text was registered with its bytes (markEncodedAnswer): the rest of the message
 * serialised (its keys in their order), the answer's bytes put in place of the text block's string. The bytes
 * JSON.stringify of the message would give.
 */
function encodedLine(message: JSONRPCMessage, result: Record<string, unknown>, answer: EncodedAnswer): Uint8Array[] {
  const placeholder = textPlaceholder();
  const placeholderJson = JSON.stringify(placeholder);
  const json = JSON.stringify({ ...message, result: { ...result, content: [{ type: 'text', text: placeholder }] } });
  const t = json.indexOf(placeholderJson);
  const head = Buffer.from(`${json.slice(0, t)}"`);
  const tail = Buffer.from(`"${json.slice(t + placeholderJson.length)}\n`);
  return [head, ...answer.text, tail];
}

export interface HardenedTransportOptions {
  limits: ServerLimits;
  log: LogFn;
  stdin?: Readable;
  stdout?: Writable;
  /** Clock for the rate limiter and durations; injectable for tests. */
  now?: () => number;
  /** Told the method of each request answered (a result or an error), as its answer is sent. */
  onAnswered?: (method: string) => void;
}

interface InFlight {
  method: string;
  tool?: string;
  started: number;
  timer: NodeJS.Timeout;
}

export class HardenedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];

  private readonly stdin: Readable;
  private readonly stdout: Writable;
  private readonly reader: LineReader;
  private readonly limiter: RateLimiter;
  private readonly now: () => number;
  private readonly inFlight = new Map<RequestId, InFlight>();
  private sendChain: Promise<void> = Promise.resolve();
  /** Lines read but not yet handled (batches from the line reader) and the position in the first batch. */
  private readonly pending: InputEvent[][] = [];
  /** The batch and position of each running request that came in a batch: its reply goes into the batch's. */
  private readonly batchSlots = new Map<RequestId, BatchSlot>();
  /** The protocol version the server answered initialize with (batches are taken under 2025-03-26 only). */
  private protocolVersion: string | undefined;
  private pendingIndex = 0;
  private yielding = false;
  /** Replies waiting to be written; reading pauses at PAUSE_WRITES and resumes at RESUME_WRITES. */
  private queuedWrites = 0;
  /** whenIdle() callers, resolved when the last queued reply has been written. */
  private idleWaiters: Array<() => void> = [];
  private throttled = false;
  private ended = false;
  private readonly inputDone = new AbortController();
  private closed = false;
  /** Bad messages not logged yet, the last of them, when bad input was last logged, and the timer that logs the rest. */
  private invalidCount = 0;
  private lastInvalid = '';
  private lastInvalidLog = -Infinity;
  private invalidTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: HardenedTransportOptions) {
    this.stdin = options.stdin ?? process.stdin;
    this.stdout = options.stdout ?? process.stdout;
    this.reader = new LineReader(options.limits.maxPayloadBytes);
    this.now = options.now ?? Date.now;
    this.limiter = new RateLimiter(options.limits.rateLimit, options.limits.rateWindowMs, this.now);
  }

  async start(): Promise<void> {
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onStreamError);
    this.stdin.on('end', this.onEnd);
    this.stdout.on('error', this.onStdoutError);
  }

  /**
   * Aborted once the client's input has ended and every line of it has been handled: requests the server sent the
   * client (sampling) stop waiting for an answer that cannot come, and the requests still running finish sooner.
   */
  get inputEnded(): AbortSignal {
    return this.inputDone.signal;
  }

  /**
   * Resolves once every message handed to the transport has been written out (a large reply counts until the
   * stream drained it); at once when nothing is queued. Background work waits for it, so that it does not hold up
   * the event loop while a reply is leaving.
   */
  whenIdle(): Promise<void> {
    if (this.queuedWrites === 0 || this.closed) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onStreamError);
    this.stdin.off('end', this.onEnd);
    for (const entry of this.inFlight.values()) clearTimeout(entry.timer);
    this.inFlight.clear();
    this.reportInvalid();
    this.stdin.pause();
    this.onclose?.();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if ('id' in message && !('method' in message) && message.id === ZERO_ID_ALIAS.peek()) message = { ...message, id: 0 };
    const id = 'id' in message && !('method' in message) ? message.id : undefined;
    const text = 'result' in message ? textBlockOf(message.result) : undefined;
    if (id !== undefined && !this.inFlight.has(id)) {
      // Its request was answered with a timeout error or cancelled: nothing more may be sent for it. (The SDK
      // drops such replies itself; this is the guard should it not.)
      if (text !== undefined && isEncodedAnswerText(text)) dropEncodedAnswer(text);
      this.options.log('info', `dropped a late reply to request ${JSON.stringify(id)}: it timed out or was cancelled`);
      return;
    }
    if (text !== undefined && isEncodedAnswerText(text) && !hasEncodedAnswer(text)) {
      // Cannot happen (an answer is let go only when its reply will not be sent): the client must never see the
      // stand-in as if it were the answer.
      this.options.log('error', `the answer to request ${JSON.stringify(id)} was lost before it was written`);
      message = errorResponse(id ?? null, { code: ErrorCode.InternalError, message: 'The answer was lost before it was sent; call the tool again.' });
    }
    // The SDK's own McpError writes "MCP error <code>: " into its message, and the client's McpError adds it again.
    if ('error' in message) {
      const prefix = `MCP error ${message.error.code}: `;
      if (message.error.message.startsWith(prefix)) message = { ...message, error: { ...message.error, message: message.error.message.slice(prefix.length) } };
    }
    // Serialised and encoded once: the bytes measured against the limit are the bytes written.
    let line = encodeParts(message);
    let size = -1;
    for (const part of line) size += part.length;
    if (id !== undefined) {
      const method = this.inFlight.get(id)?.method;
      if (method === 'initialize' && 'result' in message && typeof message.result.protocolVersion === 'string') {
        this.protocolVersion = message.result.protocolVersion;
      }
      let outgoing: JSONRPCMessage = message;
      if (size > maxSendBytes(this.options.limits)) {
        outgoing = errorResponse(id, resultTooLargeError(this.options.limits, size, method));
        line = encodeParts(outgoing);
        size = -1;
        for (const part of line) size += part.length;
      }
      this.finish(id, outgoing);
      const slot = this.batchSlots.get(id);
      if (slot) {
        this.batchSlots.delete(id);
        slot.batch.running--;
        this.putInBatch(slot, { id, parts: withoutNewline(line), size, method });
        return;
      }
    } else if (size > maxSendBytes(this.options.limits)) {
      this.options.log('error', `dropped an outgoing ${'method' in message ? message.method : 'message'} over the payload limit`);
      return;
    }
    return this.write(line);
  }

  private write(message: Uint8Array[] | JSONRPCMessage): Promise<void> {
    const line = Array.isArray(message) ? message : encodeParts(message);
    // One write at a time keeps order and leaves a single 'drain' listener however many replies queue up.
    this.queuedWrites++;
    this.sendChain = this.sendChain
      .then(
        () =>
          new Promise<void>((resolve) => {
            // The pieces of one line go out together (one writev where the stream supports it).
            let flowing = true;
            if (line.length > 1) this.stdout.cork();
            for (const part of line) flowing = this.stdout.write(part);
            if (line.length > 1) this.stdout.uncork();
            if (flowing) resolve();
            else this.stdout.once('drain', resolve);
          }),
      )
      .catch((err: unknown) => {
        this.onerror?.(err instanceof Error ? err : new Error(String(err)));
      })
      .then(() => this.afterWrite());
    return this.sendChain;
  }

  /** Reading resumes once a client that stopped reading replies has caught up. */
  private afterWrite(): void {
    this.queuedWrites--;
    if (this.queuedWrites === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
    if (!this.throttled || this.queuedWrites > RESUME_WRITES) return;
    this.throttled = false;
    this.resumeReading();
    this.drain();
  }

  private resumeReading(): void {
    if (!this.closed && !this.ended && !this.yielding && !this.throttled) this.stdin.resume();
  }

  private readonly onData = (chunk: Buffer | string): void => {
    this.pending.push(this.reader.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    this.drain();
  };

  /** Handles queued lines in order; stops early (reading paused) when a line asks for a turn of the event loop. */
  private drain(): void {
    this.drainLines();
    this.closeWhenIdle();
  }

  /**
   * At the end of input every line read is handled and every running request answered (or timed out) before the
   * connection closes: the SDK aborts what is still running at close, so `echo request | server` would get nothing.
   */
  private closeWhenIdle(): void {
    if (!this.ended || this.closed || this.yielding || this.throttled || this.pending.length > 0) return;
    // Every line the client sent has been handled: no answer to a request of ours can come any more.
    if (!this.inputDone.signal.aborted) this.inputDone.abort(new Error('the client closed its input, so no answer can come'));
    if (this.inFlight.size > 0) return;
    // After the reply that finished the last request has been queued (send() finishes, then writes).
    setImmediate(() => {
      void this.sendChain.then(() => {
        if (this.inFlight.size === 0 && this.pending.length === 0) void this.close();
      });
    });
  }

  private drainLines(): void {
    while (!this.closed && !this.yielding && !this.throttled && this.pending.length > 0) {
      if (this.queuedWrites >= PAUSE_WRITES) {
        // Backpressure: a client that does not read its replies (each bad line gets one) stops our reading, so
        // neither the replies nor its input pile up in memory.
        this.throttled = true;
        this.stdin.pause();
        return;
      }
      const batch = this.pending[0];
      const event = batch[this.pendingIndex++];
      if (this.pendingIndex >= batch.length) {
        this.pending.shift();
        this.pendingIndex = 0;
      }
      if (!event) continue;
      let yieldAfter = false;
      try {
        if (event.kind === 'line') yieldAfter = this.handleLine(event.bytes);
        else if (event.kind === 'item') yieldAfter = this.handleBatchItem(event.value, event.slot);
        else this.handleOversized(event.size, event.id, event.noReply);
      } catch (err) {
        // A bug in handling one message must not end the connection.
        this.options.log('error', `failed to handle a message: ${(err as Error).stack ?? String(err)}`);
      }
      if (yieldAfter && this.pending.length > 0) {
        // The SDK acts on a notification one microtask later; a request that reuses the cancelled id in the
        // same chunk must not be registered first, or the cancellation would abort the new request instead.
        this.yielding = true;
        this.stdin.pause();
        setImmediate(() => {
          this.yielding = false;
          if (this.closed) return;
          this.resumeReading();
          this.drain();
        });
      }
    }
  }

  private readonly onStreamError = (err: Error): void => this.onerror?.(err);
  private readonly onEnd = (): void => {
    this.ended = true;
    this.pending.push(this.reader.end());
    this.drain();
  };
  // EPIPE and the like: the client is gone, so end the connection instead of dying on an unhandled error.
  private readonly onStdoutError = (err: Error): void => {
    this.options.log('warn', `stdout closed: ${err.message}`);
    void this.close();
  };

  /** Handles one line; true when the rest of the input should wait for a turn of the event loop. */
  private handleLine(bytes: Buffer): boolean {
    let text: string;
    let value: unknown;
    try {
      // Fatal decoding: invalid UTF-8 would otherwise turn silently into U+FFFD inside a note's text.
      text = UTF8.decode(bytes);
      if (text.trim() === '') return false; // blank keep-alive lines are not messages
      value = JSON.parse(text);
    } catch (err) {
      this.noteInvalid(`line of ${bytes.length} bytes is not ${err instanceof SyntaxError ? 'JSON' : 'UTF-8'}`);
      void this.write(errorResponse(null, {
        code: ErrorCode.ParseError,
        message: `Parse error: the line is not valid ${err instanceof SyntaxError ? 'JSON' : 'UTF-8'} (${(err as Error).message}).`,
        data: { details: 'Each message must be one JSON-RPC 2.0 object on a single line.' },
      }));
      return false;
    }
    if (Array.isArray(value) && this.protocolVersion === BATCH_PROTOCOL_VERSION) {
      this.startBatch(value);
      return false;
    }
    return this.handleValue(value);
  }

  /** Handles one message (of a line, or of a batch: `slot`); true when the rest of the input should wait a turn. */
  private handleValue(value: unknown, slot?: BatchSlot): boolean {
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      this.handleInvalid(value, slot);
      return false;
    }
    const message = parsed.data;
    if ('method' in message && 'id' in message) {
      if (slot && message.method === 'initialize') {
        this.noteInvalid('initialize in a batch');
        this.reply(errorResponse(message.id, {
          code: ErrorCode.InvalidRequest,
          message: 'Invalid request: initialize cannot be part of a batch.',
          data: { details: 'MCP 2025-03-26: the initialize request must not be part of a JSON-RPC batch; send it alone.' },
        }), slot);
        return false;
      }
      if (!this.admit(message.id, message.method, message.params, slot)) return false;
      const bad = invalidParams(message.method, message.params);
      if (bad) {
        // The SDK reports these as -32603 with a raw schema dump; JSON-RPC says -32602.
        const response = errorResponse(message.id, bad);
        this.finish(message.id, response);
        this.reply(response, slot);
        return false;
      }
      if (slot) {
        this.batchSlots.set(message.id, slot);
        slot.batch.running++;
      }
      if (message.method === 'initialize' && isPlainObject(message.params) && typeof message.params.protocolVersion === 'string') {
        // The version the SDK will answer (send() takes it from the reply too), known now for lines that were sent
        // without waiting for the reply (`cat requests | server`).
        const requested = message.params.protocolVersion;
        this.protocolVersion = SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
      }
    }
    const cancelled = 'method' in message && message.method === 'notifications/cancelled' && this.forgetCancelled(message);
    this.onmessage?.(toSdkIds(message));
    return cancelled;
  }

  /**
   * A batch from a client of MCP 2025-03-26: its messages are handled one by one, in order, before the lines that
   * follow it, and the replies to its requests are sent together, as one array, once every one of them has its
   * reply (JSON-RPC 2.0, section 6). An empty batch, or one over MAX_BATCH_MESSAGES, gets one -32600 error.
   */
  private startBatch(values: unknown[]): void {
    if (values.length === 0 || values.length > MAX_BATCH_MESSAGES) {
      const why = values.length === 0 ? 'the batch is empty' : `the batch holds ${values.length} messages, over the limit of ${MAX_BATCH_MESSAGES}`;
      this.noteInvalid(`invalid request: ${why}`);
      void this.write(errorResponse(null, {
        code: ErrorCode.InvalidRequest,
        message: `Invalid request: ${why}.`,
        data: { details: `A batch is a JSON array of 1 to ${MAX_BATCH_MESSAGES} JSON-RPC messages.` },
      }));
      return;
    }
    const batch: Batch = { replies: new Array<BatchReply | undefined>(values.length).fill(undefined), unhandled: values.length, running: 0 };
    // Before the rest of the lines already read (the current chunk's position is kept by cutting it there).
    const current = this.pending[0];
    if (current && this.pendingIndex > 0) {
      this.pending[0] = current.slice(this.pendingIndex);
      this.pendingIndex = 0;
    }
    this.pending.unshift(values.map((value, index) => ({ kind: 'item' as const, value, slot: { batch, index } })));
  }

  private handleBatchItem(value: unknown, slot: BatchSlot): boolean {
    slot.batch.unhandled--;
    try {
      return this.handleValue(value, slot);
    } finally {
      this.flushBatch(slot.batch);
    }
  }

  /** A reply to a message of a batch; the batch's reply is sent when it was the last one missing. */
  private putInBatch(slot: BatchSlot, reply: BatchReply): void {
    slot.batch.replies[slot.index] = reply;
    this.flushBatch(slot.batch);
  }

  /** The error reply `response` to a message: written, or put in its batch's reply. */
  private reply(response: JSONRPCMessage, slot?: BatchSlot): void {
    if (!slot) {
      void this.write(response);
      return;
    }
    const parts = encodeParts(response);
    let size = -1;
    for (const part of parts) size += part.length;
    const id = 'id' in response ? (response.id as RequestId | null) : null;
    this.putInBatch(slot, { id, parts: withoutNewline(parts), size });
  }

  /**
   * Sends a batch's reply once every message of it is handled and every request answered: one line holding the
   * array of replies, or nothing when there are none (a batch of notifications). Should the replies together be
   * over the limit for a reply, the largest results are replaced by -32005 errors until the rest fits.
   */
  private flushBatch(batch: Batch): void {
    if (batch.unhandled > 0 || batch.running > 0 || this.closed) return;
    const replies = batch.replies.filter((r): r is BatchReply => r !== undefined);
    batch.replies.length = 0;
    if (replies.length === 0) return;
    const limit = maxSendBytes(this.options.limits);
    let total = 1 + replies.length;
    for (const r of replies) total += r.size;
    while (total > limit) {
      const largest = replies.reduce((a, b) => (b.size > a.size ? b : a));
      const error = errorResponse(largest.id, resultTooLargeError(this.options.limits, largest.size, largest.method));
      const parts = withoutNewline(encodeParts(error));
      let size = 0;
      for (const part of parts) size += part.length;
      if (size >= largest.size) break; // cannot happen: every reply is far larger than an error
      this.options.log('warn', `replaced the reply to request ${JSON.stringify(largest.id)} in a batch: the batch's replies together were over the ${limit}-byte limit`);
      total += size - largest.size;
      Object.assign(largest, { parts, size });
    }
    const line: Uint8Array[] = [Buffer.from('[')];
    replies.forEach((r, i) => {
      if (i > 0) line.push(Buffer.from(','));
      line.push(...r.parts);
    });
    line.push(Buffer.from(']\n'));
    void this.write(line);
  }

  /**
   * The client cancelled a request: the SDK aborts its handler and drops its reply (MCP: a cancelled request
   * gets no response), so its timer must stop here and its id becomes free again.
   */
  private forgetCancelled(message: JSONRPCMessage): boolean {
    const parsed = CancelledNotificationSchema.safeParse(message);
    if (!parsed.success) return false;
    const id = parsed.data.params.requestId;
    if (id === undefined) return false;
    const entry = this.inFlight.get(id);
    if (!entry) return false; // already answered, or never seen: nothing to do (MCP says ignore it)
    clearTimeout(entry.timer);
    this.inFlight.delete(id);
    // A cancelled request of a batch has no place in the batch's reply.
    const slot = this.batchSlots.get(id);
    if (slot) {
      this.batchSlots.delete(id);
      slot.batch.running--;
      this.flushBatch(slot.batch);
    }
    this.closeWhenIdle();
    const reason = parsed.data.params.reason ? `: ${parsed.data.params.reason}` : '';
    this.options.log('info', `${requestName(entry)} cancelled by the client after ${Math.round(this.now() - entry.started)} ms${reason}`, { id });
    return true;
  }

  /** Rate limit, duplicate ids and the operation timer for one request; false when it was answered here. */
  private admit(id: RequestId, method: string, params: unknown, slot?: BatchSlot): boolean {
    if (this.inFlight.has(id)) {
      this.reply(errorResponse(id, {
        code: ErrorCode.InvalidRequest,
        message: `Invalid request: id ${JSON.stringify(id)} is already in use by a request still running.`,
        data: { details: 'Each request needs an id that no running request uses.' },
      }), slot);
      return false;
    }
    // MCP: the receiver of a ping must answer it promptly. A ping costs nothing to answer, so it is neither refused
    // nor counted (a client's keep-alive pings leave its requests their whole allowance).
    const allowed = method === 'ping' ? ({ ok: true } as const) : this.limiter.take();
    if (!allowed.ok) {
      const body = rateLimitedError(this.options.limits, allowed.retryAfterMs);
      this.options.log('warn', `${method} rejected: rate limit`, { id, retryAfterMs: allowed.retryAfterMs });
      this.reply(errorResponse(id, body), slot);
      return false;
    }
    const tool = method === 'tools/call' && isPlainObject(params) && typeof params.name === 'string' ? params.name : undefined;
    const timer = setTimeout(() => this.onTimeout(id), this.options.limits.timeoutMs);
    timer.unref();
    this.inFlight.set(id, { method, tool, started: this.now(), timer });
    return true;
  }

  private onTimeout(id: RequestId): void {
    const entry = this.inFlight.get(id);
    if (!entry) return;
    // The SDK aborts the handler's `extra.signal` on a cancellation for this id and then drops its reply.
    this.onmessage?.({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: sdkRequestId(id), reason: `timed out after ${this.options.limits.timeoutMs} ms` },
    });
    const response = errorResponse(id, timeoutError(this.options.limits, requestName(entry)));
    this.finish(id, response);
    const slot = this.batchSlots.get(id);
    if (slot) {
      this.batchSlots.delete(id);
      slot.batch.running--;
    }
    this.reply(response, slot);
  }

  /** Stops the timer of a request and logs its method, duration and outcome. */
  private finish(id: RequestId, response: JSONRPCMessage): void {
    const entry = this.inFlight.get(id);
    if (!entry) return;
    clearTimeout(entry.timer);
    this.inFlight.delete(id);
    this.closeWhenIdle();
    const durationMs = Math.round(this.now() - entry.started);
    const name = requestName(entry);
    let outcome = 'ok';
    if ('error' in response) outcome = `error ${response.error.code}`;
    else if ('result' in response && isPlainObject(response.result) && response.result.isError === true) outcome = 'tool error';
    this.options.log(outcome === 'ok' ? 'info' : 'warn', `${name} ${outcome} in ${durationMs} ms`, { id });
    this.options.onAnswered?.(entry.method);
  }

  private handleInvalid(value: unknown, slot?: BatchSlot): void {
    const record = isPlainObject(value) ? value : undefined;
    // Notifications never get responses; neither do (malformed) responses to our own requests.
    if (record && !('id' in record) && typeof record.method === 'string') {
      this.noteInvalid(`malformed notification ${record.method} ignored`);
      return;
    }
    if (record && !('method' in record) && ('result' in record || 'error' in record)) {
      this.noteInvalid('malformed response ignored');
      return;
    }
    const id = record ? echoableId(record.id) : null;
    const why = slot && Array.isArray(value) ? 'a batch cannot hold another batch' : describeInvalid(value);
    this.noteInvalid(`invalid request: ${why}`);
    this.reply(errorResponse(id, {
      code: ErrorCode.InvalidRequest,
      message: `Invalid request: ${why}.`,
      data: { details: 'A request is {"jsonrpc":"2.0","id":<string|number>,"method":<string>,"params"?:<object>}.' },
    }), slot);
  }

  private handleOversized(size: number, id: RequestId | null, noReply: boolean): void {
    this.options.log('warn', `dropped an incoming message of ${size} bytes over the ${this.options.limits.maxPayloadBytes}-byte limit`, { id });
    // A notification, or a response to a request of the server's: an error with its id would be taken by the
    // client for the answer to its own request of that id.
    if (noReply) return;
    void this.write(errorResponse(id, payloadTooLargeError(this.options.limits, size)));
  }

  /**
   * Logs bad input without letting a flood of it flood the log: at most one line a second. What comes within the
   * second after a line is counted and logged at its end, so a burst of bad messages is never left unsaid.
   */
  private noteInvalid(what: string): void {
    this.invalidCount++;
    this.lastInvalid = what;
    const wait = this.lastInvalidLog + 1000 - this.now();
    if (wait <= 0) this.reportInvalid();
    else if (!this.invalidTimer) {
      this.invalidTimer = setTimeout(() => this.reportInvalid(), wait);
      this.invalidTimer.unref();
    }
  }

  /** Logs the bad messages counted since the last line about them, if any. */
  private reportInvalid(): void {
    clearTimeout(this.invalidTimer);
    this.invalidTimer = undefined;
    if (this.invalidCount === 0) return;
    const what = this.invalidCount > 1 ? `${this.invalidCount} bad messages since the last report, the last: ${this.lastInvalid}` : this.lastInvalid;
    this.options.log('warn', `bad input: ${what}`);
    this.invalidCount = 0;
    this.lastInvalidLog = this.now();
  }
}

/** A request with id 0, or a cancellation naming it, as the SDK is to see it (see ZERO_ID_ALIAS). */
function toSdkIds(message: JSONRPCMessage): JSONRPCMessage {
  if ('method' in message) {
    if ('id' in message && message.id === 0) return { ...message, id: ZERO_ID_ALIAS.get() };
    if (message.method === 'notifications/cancelled' && isPlainObject(message.params) && message.params.requestId === 0) {
      return { ...message, params: { ...message.params, requestId: ZERO_ID_ALIAS.get() } };
    }
  }
  return message;
}

/** The pieces of a line without its final newline. */
function withoutNewline(parts: Uint8Array[]): Uint8Array[] {
  const last = parts[parts.length - 1];
  return [...parts.slice(0, -1), last.subarray(0, last.length - 1)];
}

function errorResponse(id: RequestId | null, error: JsonRpcErrorBody): JSONRPCMessage {
  // The SDK's type has no null id, but JSON-RPC 2.0 requires id null when the request's id cannot be read.
  return { jsonrpc: '2.0', id, error } as unknown as JSONRPCMessage;
}

/**
 * The id to put in an error reply: a string, or a number that reads back exactly. An integer beyond 2^53 has
 * already lost digits in parsing, so echoing it would name another request: JSON-RPC's null instead.
 */
function echoableId(id: unknown): RequestId | null {
  if (typeof id === 'string') return id;
  if (typeof id === 'number' && Number.isFinite(id) && (Number.isSafeInteger(id) || !Number.isInteger(id))) return id;
  return null;
}

/** `tools/call read_file` for a tool call, else the method. */
function requestName(entry: InFlight): string {
  return entry.tool ? `${entry.method} ${entry.tool}` : entry.method;
}


/**
 * Schema of each standard MCP request by method: the SDK's union of client requests (ClientRequestSchema), which a
 * test keeps this table equal to. Named one by one, each schema is built when a request of its method first comes
 * (see lazy-sdk-schemas.mjs), not all of them as the server loads: those of the tasks requests most servers never
 * see, and the union itself.
 */
export const REQUEST_SCHEMAS: ReadonlyMap<string, ZodType> = new Map<string, ZodType>([
  ['ping', PingRequestSchema],
  ['initialize', InitializeRequestSchema],
  ['completion/complete', CompleteRequestSchema],
  ['logging/setLevel', SetLevelRequestSchema],
  ['prompts/get', GetPromptRequestSchema],
  ['prompts/list', ListPromptsRequestSchema],
  ['resources/list', ListResourcesRequestSchema],
  ['resources/templates/list', ListResourceTemplatesRequestSchema],
  ['resources/read', ReadResourceRequestSchema],
  ['resources/subscribe', SubscribeRequestSchema],
  ['resources/unsubscribe', UnsubscribeRequestSchema],
  ['tools/call', CallToolRequestSchema],
  ['tools/list', ListToolsRequestSchema],
  ['tasks/get', GetTaskRequestSchema],
  ['tasks/result', GetTaskPayloadRequestSchema],
  ['tasks/list', ListTasksRequestSchema],
  ['tasks/cancel', CancelTaskRequestSchema],
]);

/** A -32602 error when the params of a known method do not fit its schema. */
function invalidParams(method: string, params: unknown): JsonRpcErrorBody | undefined {
  const schema = REQUEST_SCHEMAS.get(method);
  if (!schema) return undefined;
  const parsed = schema.safeParse({ method, ...(params === undefined ? {} : { params }) });
  const issues = parsed.success ? uriIssues(params) : parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
  if (issues.length === 0) return undefined;
  return {
    code: ErrorCode.InvalidParams,
    message: `Invalid params for ${method}: ${issues.join('; ')}`,
    data: { details: issues.join('; '), issues },
  };
}

/** Longest resource URI accepted (a note path of 4 096 bytes, each percent-encoded, is 12 288 characters). */
const MAX_URI_CHARS = 65_536;

/** Problems with a `uri` parameter (resources/read, subscribe, unsubscribe) that the schema, a plain string, lets by. */
function uriIssues(params: unknown): string[] {
  const uri = isPlainObject(params) ? params.uri : undefined;
  if (typeof uri !== 'string') return [];
  if (uri.length > MAX_URI_CHARS) return [`uri: ${uri.length} characters, over the limit of ${MAX_URI_CHARS}`];
  return URL.canParse(uri) ? [] : [`uri: "${uri.length > 200 ? `${uri.slice(0, 200)}…` : uri}" is not a valid URI`];
}

function describeInvalid(value: unknown): string {
  if (Array.isArray(value)) return `batches (JSON arrays) are taken only from a client of MCP ${BATCH_PROTOCOL_VERSION} (later revisions removed them); send one object per line`;
  if (!isPlainObject(value)) return `the message is a JSON ${value === null ? 'null' : typeof value}, not an object`;
  if (value.jsonrpc !== '2.0') return 'jsonrpc must be "2.0"';
  if ('id' in value && !(typeof value.id === 'string' || Number.isSafeInteger(value.id))) return 'id must be a string or an integer';
  if (typeof value.method !== 'string') return 'method must be a string';
  if ('params' in value && !isPlainObject(value.params)) return 'params must be an object';
  return requestIssue(value) ?? 'not a valid JSON-RPC 2.0 request';
}

/**
 * What the SDK's schema of a request finds wrong with `value` once the checks above pass: a member other than
 * jsonrpc, id, method and params, or a params field of MCP's of the wrong type (`_meta`, its `progressToken`).
 */
function requestIssue(value: unknown): string | undefined {
  const parsed = JSONRPCRequestSchema.safeParse(value);
  const issue = parsed.success ? undefined : parsed.error.issues[0];
  if (!issue) return undefined;
  if (issue.code === 'unrecognized_keys' && issue.path.length === 0) {
    const names = issue.keys.map((k) => JSON.stringify(k)).join(', ');
    return `it has the member${issue.keys.length > 1 ? 's' : ''} ${names}; a request holds only jsonrpc, id, method and params`;
  }
  const where = issue.path.map(String).join('.') || '(root)';
  if (issue.code === 'invalid_union') {
    // MCP's progress token is a string or an integer: zod names the integer only for a number that is not one, and
    // the number alone for any other value.
    const expected = issue.path.at(-1) === 'progressToken' ? ['string', 'int'] : [...new Set(issue.errors.flat().map((e) => (e.code === 'invalid_type' ? e.expected : undefined)))];
    if (expected.length > 0 && expected.every((e) => e !== undefined)) return `${where} must be ${expected.map(typeName).join(' or ')}`;
  }
  return `${where}: ${issue.message}`;
}

/** A zod type name as a message says it: `a string`, `an integer`, `an object`. */
function typeName(type: string): string {
  if (type === 'int') return 'an integer';
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
