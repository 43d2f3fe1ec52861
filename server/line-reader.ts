// Splits a byte stream into newline-delimited messages with a size cap, never buffering more than the cap.

export type LineEvent =
  | { kind: 'line'; bytes: Buffer }
  /**
   * A line over the cap: dropped while it streamed past, with what could be read of its id. `noReply`: it looks like
   * a notification (a method, no id) or a response (a result or an error, no method), which JSON-RPC never answers.
   */
  | { kind: 'oversized'; size: number; id: string | number | null; noReply: boolean };

export class LineReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private oversized: { size: number; sniffer: TopLevelSniffer } | undefined;

  constructor(private readonly maxLineBytes: number) {}

  /** Feeds a chunk; returns the complete lines it finished, in order. */
  push(chunk: Buffer): LineEvent[] {
    const events: LineEvent[] = [];
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      const piece = chunk.subarray(start, nl === -1 ? chunk.length : nl);
      this.take(piece);
      if (nl === -1) break;
      events.push(this.finishLine());
      start = nl + 1;
    }
    return events;
  }

  /**
   * The stream ended: a last line without its newline is still a message (a client that writes one request and
   * closes its end must get its answer). Returns it, or nothing when only a newline-terminated stream was read.
   */
  end(): LineEvent[] {
    if (!this.oversized && this.buffered === 0) return [];
    return [this.finishLine()];
  }

  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.oversized) {
      this.oversized.size += piece.length;
      this.oversized.sniffer.feed(piece);
      return;
    }
    if (this.buffered + piece.length <= this.maxLineBytes + 1) {
      // +1 leaves room for the "\r" of a CRLF line exactly at the cap.
      this.chunks.push(piece);
      this.buffered += piece.length;
      return;
    }
    const sniffer = new TopLevelSniffer();
    for (const c of this.chunks) sniffer.feed(c);
    sniffer.feed(piece);
    this.oversized = { size: this.buffered + piece.length, sniffer };
    this.chunks = [];
    this.buffered = 0;
  }

  private finishLine(): LineEvent {
    if (this.oversized) {
      const { size, sniffer } = this.oversized;
      this.oversized = undefined;
      return { kind: 'oversized', size, id: sniffer.id, noReply: sniffer.noReply };
    }
    let bytes = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.buffered);
    this.chunks = [];
    this.buffered = 0;
    if (bytes.length > 0 && bytes[bytes.length - 1] === 13) bytes = bytes.subarray(0, bytes.length - 1);
    if (bytes.length > this.maxLineBytes) {
      const sniffer = new TopLevelSniffer();
      sniffer.feed(bytes);
      return { kind: 'oversized', size: bytes.length, id: sniffer.id, noReply: sniffer.noReply };
    }
    return { kind: 'line', bytes };
  }
}

const QUOTE = 34;
const BACKSLASH = 92;

/**
 * Streaming scan of a JSON text that finds the top-level "id" (string or number) and whether a top-level
 * "method" exists, without holding the text: an oversized request still gets an error with its id.
 */
export class TopLevelSniffer {
  id: string | number | null = null;
  sawId = false;
  sawMethod = false;
  /** A top-level "result" or "error": a response to one of the server's requests, when there is no "method". */
  sawResponse = false;
  private depth = 0;
  private inString = false;
  private escape = false;
  private keyPosition = false;
  private capturing: 'key' | 'id-string' | 'id-number' | undefined;
  private captured: number[] = [];
  private lastKey = '';
  private awaitingIdValue = false;
  private done = false;
  private started = false;

  feed(bytes: Buffer): void {
    for (let i = 0; i < bytes.length && !this.done; i++) this.step(bytes[i]);
  }

  private step(b: number): void {
    if (this.inString) {
      if (this.capturing && this.captured.length < 512) this.captured.push(b);
      if (this.escape) this.escape = false;
      else if (b === BACKSLASH) this.escape = true;
      else if (b === QUOTE) this.endString();
      return;
    }
    if (this.capturing === 'id-number') {
      if ((b >= 48 && b <= 57) || b === 45 || b === 43 || b === 46 || b === 101 || b === 69) {
        this.captured.push(b);
        return;
      }
      const n = Number(Buffer.from(this.captured).toString('latin1'));
      // An integer beyond 2^53 has lost digits: echoing it would name another request, so it stays null.
      if (Number.isFinite(n) && (Number.isSafeInteger(n) || !Number.isInteger(n))) this.id = n;
      this.capturing = undefined;
    }
    if (b === 32 || b === 9 || b === 10 || b === 13) return;
    if (!this.started) {
      this.started = true;
      if (b !== 123) this.done = true; // not an object: no id to find
    }
    if (this.awaitingIdValue) {
      this.awaitingIdValue = false;
      if (b === QUOTE) {
        this.inString = true;
        this.capturing = 'id-string';
        this.captured = [];
        return;
      }
      if ((b >= 48 && b <= 57) || b === 45) {
        this.capturing = 'id-number';
        this.captured = [b];
        return;
      }
    }
    switch (b) {
      case QUOTE:
        this.inString = true;
        if (this.depth === 1 && this.keyPosition) {
          this.capturing = 'key';
          this.captured = [];
        }
        return;
      case 123: // {
      case 91: // [
        this.depth++;
        this.keyPosition = b === 123 && this.depth === 1;
        return;
      case 125: // }
      case 93: // ]
        this.depth--;
        if (this.depth <= 0) this.done = true;
        return;
      case 44: // ,
        if (this.depth === 1) this.keyPosition = true;
        return;
      case 58: // :
        if (this.depth === 1) {
          this.keyPosition = false;
          if (this.lastKey === 'id') {
            this.sawId = true;
            this.awaitingIdValue = true;
          }
          if (this.lastKey === 'method') this.sawMethod = true;
          if (this.lastKey === 'result' || this.lastKey === 'error') this.sawResponse = true;
          this.lastKey = '';
        }
        return;
      default:
        return;
    }
  }

  /** A notification or a response, as far as the text read shows: JSON-RPC answers neither. */
  get noReply(): boolean {
    return this.sawMethod ? !this.sawId : this.sawResponse;
  }

  private endString(): void {
    this.inString = false;
    const kind = this.capturing;
    this.capturing = undefined;
    if (kind === undefined) return;
    const raw = Buffer.from(this.captured.slice(0, -1)).toString('utf8'); // drop the closing quote
    let text: string;
    try {
      text = String(JSON.parse(`"${raw}"`));
    } catch {
      return;
    }
    if (kind === 'key') this.lastKey = text;
    else if (this.captured.length < 512) this.id = text;
  }
}
