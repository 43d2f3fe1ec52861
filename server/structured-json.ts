// A tool result whose text block is the JSON of its structuredContent (as the MCP specification asks) carries that
// JSON twice in its reply. The tool registers the text when it makes it; the transport then writes the text in
// place of structuredContent instead of serialising the same records again (about a third of the work of sending
// a large search or listing).
import { randomUUID } from 'node:crypto';

/** Registered texts, newest last; a few at most, so that one whose reply is never sent (cancelled) is soon gone. */
const texts: string[] = [];
const KEEP = 4;

/** Records that `text` is exactly JSON.stringify of the structuredContent of the result it is the text block of. */
export function markStructuredJson(text: string): void {
  texts.push(text);
  if (texts.length > KEEP) texts.shift();
}

/** True (once) when `text` was registered by markStructuredJson. */
export function takeStructuredJson(text: string): boolean {
  const at = texts.lastIndexOf(text);
  if (at < 0) return false;
  texts.splice(at, 1);
  return true;
}

/** Stands for structuredContent while the rest of a reply is serialised: no client or note can know it. */
export const STRUCTURED_PLACEHOLDER = `\u0000structured-${randomUUID()}`;
