// Tool results whose JSON the transport writes without serialising it again. A structured tool's text block is the
// JSON of its structuredContent (as the MCP specification asks): the tool registers the text when it makes it, and
// the transport writes that text in place of structuredContent instead of serialising the same record again. A
// JSON tool's answer (search_files) may come as bytes made already: the transport writes them as the text block.
import { randomUUID } from 'node:crypto';

/**
 * The text block of a JSON tool's answer made already as bytes (a search's results, encoded by the text workers that
 * found them): the answer's JSON as the characters of a JSON string, escaped, in UTF-8, in pieces written one after
 * another.
 */
export interface EncodedAnswer {
  text: readonly Uint8Array[];
}

/**
 * Registered texts, newest last; a few at most, so that one whose reply is never sent (cancelled) is soon gone.
 * They are found by identity first (the SDK passes on copies of result objects, but the same strings).
 */
const texts: Array<{ text: string; answer?: EncodedAnswer }> = [];
const KEEP = 4;

function register(entry: { text: string; answer?: EncodedAnswer }): void {
  texts.push(entry);
  if (texts.length > KEEP) texts.shift();
}

/** Records that `text` is exactly JSON.stringify of the structuredContent of the result it is the text block of. */
export function markStructuredJson(text: string): void {
  register({ text });
}

/** Records that `answer` holds the bytes of `text`, escaped as a JSON string holds it: the transport writes those. */
export function markEncodedAnswer(text: string, answer: EncodedAnswer): void {
  register({ text, answer });
}

/** When `text` was registered: its registration, taken (found once). */
export function takeRegistered(text: string): { answer?: EncodedAnswer } | undefined {
  for (let i = texts.length - 1; i >= 0; i--) if (texts[i].text === text) return texts.splice(i, 1)[0];
  return undefined;
}

/** The text of a tool result's only content block, if it has one. */
export function textBlockOf(result: unknown): string | undefined {
  const content = (result as { content?: unknown } | null | undefined)?.content;
  const text = Array.isArray(content) && content.length === 1 ? (content[0] as { text?: unknown } | null)?.text : undefined;
  return typeof text === 'string' ? text : undefined;
}

/** Stands for structuredContent while the rest of a reply is serialised: no client or note can know it. */
export const STRUCTURED_PLACEHOLDER = `\u0000structured-${randomUUID()}`;

/** Stands for the text block's string while the rest of a reply with an encoded answer is serialised. */
export const TEXT_PLACEHOLDER = `${STRUCTURED_PLACEHOLDER}-text`;
