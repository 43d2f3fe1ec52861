// A tool result whose text block is the JSON of its structuredContent (as the MCP specification asks) carries that
// JSON twice in its reply. The tool registers the text when it makes it; the transport then writes the text in
// place of structuredContent instead of serialising the same records again (about a third of the work of sending
// a large search or listing).
import { randomUUID } from 'node:crypto';

/**
 * A reply's bytes made already (a search's results, encoded by the text workers that found them): the structured
 * result's JSON in UTF-8 (`json`), and the same JSON as the characters of a JSON string, escaped (`text`): what the
 * text block holds. Each in pieces, written one after another.
 */
export interface EncodedAnswer {
  json: readonly Uint8Array[];
  text: readonly Uint8Array[];
}

/**
 * Registered texts, newest last; a few at most, so that one whose reply is never sent (cancelled) is soon gone.
 * They are found by identity first (the SDK checks a result before sending it, and passes on copies of its
 * objects, but the same strings).
 */
const texts: Array<{ text: string; answer?: EncodedAnswer; unchecked?: boolean }> = [];
const KEEP = 4;

/**
 * Records that `text` is exactly JSON.stringify of the structuredContent of the result it is the text block of;
 * with `answer`, that these are its bytes. `unchecked` (implied by `answer`): the SDK does not check that result
 * against the tool's output schema (see server.ts).
 */
export function markStructuredJson(text: string, how: { answer?: EncodedAnswer; unchecked?: boolean } = {}): void {
  texts.push({ text, answer: how.answer, unchecked: how.unchecked === true || how.answer !== undefined });
  if (texts.length > KEEP) texts.shift();
}

function registered(text: string): number {
  for (let i = texts.length - 1; i >= 0; i--) if (texts[i].text === text) return i;
  return -1;
}

/** When `text` was registered by markStructuredJson: its registration, taken (found once). */
export function takeStructuredJson(text: string): { answer?: EncodedAnswer } | undefined {
  const at = registered(text);
  return at < 0 ? undefined : texts.splice(at, 1)[0];
}

/** The text of a tool result's only content block, if it has one. */
export function textBlockOf(result: unknown): string | undefined {
  const content = (result as { content?: unknown } | null | undefined)?.content;
  const text = Array.isArray(content) && content.length === 1 ? (content[0] as { text?: unknown } | null)?.text : undefined;
  return typeof text === 'string' ? text : undefined;
}

/** True when `result`'s text block was registered as not to be checked by the SDK (not taken). */
export function skipsOutputCheck(result: unknown): boolean {
  const text = textBlockOf(result);
  const at = text === undefined ? -1 : registered(text);
  return at >= 0 && texts[at].unchecked === true;
}

/**
 * An array whose elements are made by `make` when something first looks at it: the structured results of an
 * answer written from its bytes, which nothing on the way to the stdio transport reads (the SDK passes it on as an
 * unknown value), but an in-process client may.
 */
export function lazyArray<T>(make: () => T[]): T[] {
  let made: T[] | undefined;
  const real = () => (made ??= make());
  return new Proxy([] as T[], {
    get: (_target, key) => Reflect.get(real(), key),
    has: (_target, key) => Reflect.has(real(), key),
    ownKeys: () => Reflect.ownKeys(real()),
    getOwnPropertyDescriptor: (_target, key) => Reflect.getOwnPropertyDescriptor(real(), key),
    set: (_target, key, value) => Reflect.set(real(), key, value),
    deleteProperty: (_target, key) => Reflect.deleteProperty(real(), key),
    defineProperty: (_target, key, descriptor) => Reflect.defineProperty(real(), key, descriptor),
  });
}

/** Stands for structuredContent while the rest of a reply is serialised: no client or note can know it. */
export const STRUCTURED_PLACEHOLDER = `\u0000structured-${randomUUID()}`;

/** Stands for the text block's string while the rest of a reply with an encoded answer is serialised. */
export const TEXT_PLACEHOLDER = `${STRUCTURED_PLACEHOLDER}-text`;
