// Tool results whose JSON the transport writes without serialising it again. A structured tool's text block is the
// JSON of its structuredContent (as the MCP specification asks): the tool registers the text when it makes it, and
// the transport writes that text in place of structuredContent instead of serialising the same record again. A
// JSON tool's answer (search_files) may come as bytes made already: the tool result's text block holds a stand-in
// for them, and the transport writes the bytes in its place. Their JSON is never made as a string on that path.
import { randomUUID } from 'node:crypto';
import { perProcessValue } from './per-process';

/**
 * The text block of a JSON tool's answer made already as bytes (a search's results, encoded by the text workers that
 * found them): the answer's JSON as the characters of a JSON string, escaped, in UTF-8, in pieces written one after
 * another.
 */
export interface EncodedAnswer {
  text: readonly Uint8Array[];
}

/**
 * The stand-ins this process writes while it serialises a reply; no client or note can know them. Made with the first
 * reply that needs one: until then no text can hold them.
 */
const placeholders = perProcessValue(() => {
  const structured = `\u0000structured-${randomUUID()}`;
  return {
    /** Stands for structuredContent while the rest of a reply is serialised. */
    structured,
    /** Stands for the text block's string while the rest of a reply with an encoded answer is serialised. */
    text: `${structured}-text`,
    /** How a text that stands for an encoded answer begins (see markEncodedAnswer); a number follows. */
    answerPrefix: `${structured}-answer-`,
  };
});

/** Stands for structuredContent while the rest of a reply is serialised. */
export function structuredPlaceholder(): string {
  return placeholders.get().structured;
}

/** Stands for the text block's string while the rest of a reply with an encoded answer is serialised. */
export function textPlaceholder(): string {
  return placeholders.get().text;
}

/** True when `text` begins as a text that stands for an encoded answer does (none does before the first is made). */
function hasAnswerPrefix(text: string): boolean {
  const made = placeholders.peek();
  return made !== undefined && text.startsWith(made.answerPrefix);
}

/** Encoded answers not written yet, by the text that stands for each. */
const answers = new Map<string, EncodedAnswer>();
let answersMarked = 0;

/**
 * Registered texts, newest last; a few at most, so that one whose reply is never sent (cancelled) is soon gone.
 * They are found by identity first (the SDK passes on copies of result objects, but the same strings).
 */
const texts: Array<{ text: string }> = [];
const KEEP = 4;

/** Records that `text` is exactly JSON.stringify of the structuredContent of the result it is the text block of. */
export function markStructuredJson(text: string): void {
  texts.push({ text });
  if (texts.length > KEEP) texts.shift();
}

/**
 * Keeps `answer` until the transport writes it, and returns the text that stands for it in the tool result's text
 * block: the transport writes the answer's bytes in place of that text. Kept until taken or dropped (an answer lost
 * would leave the client a stand-in, so none is let go by count): the caller drops it when its request is cancelled.
 */
export function markEncodedAnswer(answer: EncodedAnswer): string {
  const text = `${placeholders.get().answerPrefix}${++answersMarked}`;
  answers.set(text, answer);
  return text;
}

/** Lets the answer a text stands for go (its reply will not be sent). */
export function dropEncodedAnswer(text: string): void {
  answers.delete(text);
}

/** True for a text that stands for an encoded answer (see markEncodedAnswer), kept or not. */
export function isEncodedAnswerText(text: string): boolean {
  return hasAnswerPrefix(text);
}

/** True while the answer a text stands for is kept (marked, neither written nor dropped). */
export function hasEncodedAnswer(text: string): boolean {
  return answers.has(text);
}

/** When `text` was registered: its registration, taken (found once); `answer` for a text that stands for one. */
export function takeRegistered(text: string): { answer?: EncodedAnswer } | undefined {
  if (hasAnswerPrefix(text)) {
    const answer = answers.get(text);
    if (!answer) return undefined;
    answers.delete(text);
    return { answer };
  }
  for (let i = texts.length - 1; i >= 0; i--) {
    if (texts[i].text !== text) continue;
    texts.splice(i, 1);
    return {};
  }
  return undefined;
}

/** The text of a tool result's only content block, if it has one. */
export function textBlockOf(result: unknown): string | undefined {
  const content = (result as { content?: unknown } | null | undefined)?.content;
  const text = Array.isArray(content) && content.length === 1 ? (content[0] as { text?: unknown } | null)?.text : undefined;
  return typeof text === 'string' ? text : undefined;
}
