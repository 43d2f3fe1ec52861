// Bounds on note analysis, so one huge note can neither hold the server's single thread nor overflow a result.

/** Characters of a note that are analysed (metadata, summaries, tasks); the rest is reported as not analysed. */
export const ANALYSIS_LIMIT = 1024 * 1024;
/** Items per list in a result (links, headings, tags, tasks). */
export const MAX_LIST_ITEMS = 5000;

/** The part of `text` that is analysed: all of it, or its first ANALYSIS_LIMIT characters cut after a line break. */
export function analysedPart(text: string): { text: string; truncated: boolean } {
  if (text.length <= ANALYSIS_LIMIT) return { text, truncated: false };
  const lineEnd = text.lastIndexOf('\n', ANALYSIS_LIMIT - 1);
  return { text: text.slice(0, lineEnd > 0 ? lineEnd + 1 : ANALYSIS_LIMIT), truncated: true };
}

/** The first MAX_LIST_ITEMS items, and whether any were left out. */
export function capList<T>(items: readonly T[]): { items: T[]; truncated: boolean } {
  return { items: items.slice(0, MAX_LIST_ITEMS), truncated: items.length > MAX_LIST_ITEMS };
}
