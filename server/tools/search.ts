// Search tool: search_files.
import { z } from 'zod';
import type { SearchResultItem } from '../../src/core/workspace/search';
import { DEFAULT_LIMITS } from '../limits';
import type { NotesContext } from './context';
import { defineTool } from './define-tool';

/** Room for the rest of a reply besides its results and request id: the JSON-RPC envelope, the content wrapper, count, truncated. */
const REPLY_ROOM = 64 * 1024;

/** Characters of a result's JSON besides its three strings and its line number: keys, quotes, braces. */
const RESULT_FRAME = JSON.stringify({ file: '', line: 0, content: '', match: '' }).length - 1;
/** Quotes in a result's JSON besides those its strings hold: four keys and three string values. */
const RESULT_QUOTES = 14;

/** Bytes of `text` in UTF-8, and of `text` again as a JSON string (its quotes and backslashes escaped). */
function bytesTwice(text: string): number {
  return Buffer.byteLength(text) + Buffer.byteLength(JSON.stringify(text));
}

/**
 * At least the bytes of a reply carrying `text` (the JSON of { results, count, truncated }) twice: as
 * structuredContent, and escaped inside the text block. Escaping adds one byte per quote and backslash: the
 * results' own quotes, and two for each escape sequence the JSON already holds, which is found from how much
 * longer the JSON is than its results' characters and frames.
 */
function replyBytesAtMost(results: readonly SearchResultItem[], text: string): number {
  let frames = JSON.stringify({ results: [], count: results.length, truncated: true }).length + Math.max(0, results.length - 1);
  for (const r of results) frames += RESULT_FRAME + r.file.length + r.content.length + r.match.length + String(r.line).length;
  const expansion = Math.max(0, text.length - frames);
  const bytes = Buffer.byteLength(text);
  // And the two quotes around the text block's string.
  return 2 * bytes + RESULT_QUOTES * results.length + 6 + 2 * expansion + 2;
}

/**
 * The structured answer and its text, cut to the results that fit in one reply of `maxBytes`: a reply carries
 * every result twice, as JSON in structuredContent and again inside the text block, escaped. Answers far below
 * the limit are not measured; large ones get a bound that costs one pass over their bytes, and only answers over
 * that bound are measured result by result and cut.
 */
export function fitAnswer(results: SearchResultItem[], truncated: boolean, maxBytes: number): { structured: { results: SearchResultItem[]; count: number; truncated: boolean }; json: string } {
  const budget = maxBytes - REPLY_ROOM;
  let structured = { results, count: results.length, truncated };
  let text: string;
  // A search that stopped at maxChars (truncated, and more characters than half the limit) is cut without first
  // serialising all of it.
  let chars = 0;
  if (truncated) for (const r of results) chars += r.file.length + r.content.length + r.match.length;
  if (chars * 2 <= maxBytes) {
    text = JSON.stringify(structured);
    // A UTF-16 unit is at most 3 bytes in UTF-8, and escaping adds at most one byte per unit.
    if (text.length * 7 <= budget || replyBytesAtMost(results, text) <= budget) return { structured, json: text };
  }
  let used = 0;
  let fit = 0;
  for (; fit < results.length; fit++) {
    // The result's JSON, then that JSON escaped in the text: the two quotes bytesTwice counts around it stand for
    // the comma after it in each copy.
    used += bytesTwice(JSON.stringify(results[fit]));
    if (used > budget) break;
  }
  // The bound can be over the budget while every result fits (it counts each escape sequence as two bytes).
  if (fit < results.length) structured = { results: results.slice(0, fit), count: fit, truncated: true };
  return { structured, json: JSON.stringify(structured) };
}

export function registerSearchTools(ctx: NotesContext): void {
  const defaults = ctx.config.search;
  const maxBytes = ctx.deps.maxResultBytes ?? DEFAULT_LIMITS.maxPayloadBytes;
  defineTool(ctx, {
    name: 'search_files',
    category: 'search',
    title: 'Search files',
    description: `Search the text of every note and text file in the workspace, line by line. Returns one result per matching line: the file, the 1-based line number, the line's text and the matched text. At most ${defaults.maxResults} results (search.maxResults), and no more than fit in a 10 MB answer; \`truncated\` says more existed. Whole-word matching is ${defaults.wholeWord ? 'on' : 'off'} (search.wholeWord). Regular expressions use JavaScript syntax; one that runs too long is stopped with an error.`,
    input: {
      query: z.string().min(1).describe('Text to find, or a JavaScript regular expression when `regex` is true.'),
      case_sensitive: z.boolean().optional().describe(`Match case exactly (default ${defaults.caseSensitive}, from search.caseSensitive).`),
      regex: z.boolean().optional().describe(`Treat the query as a regular expression (default ${defaults.useRegex}, from search.useRegex).`),
    },
    output: {
      results: z
        .array(
          z.object({
            file: z.string().describe('Workspace-relative path.'),
            line: z.number().describe('1-based line number.'),
            content: z.string().describe('The matching line.'),
            match: z.string().describe('The text that matched.'),
          }),
        )
        .describe('Matches in path order, then line order.'),
      count: z.number().describe('Number of results returned.'),
      truncated: z.boolean().describe('True when more matches existed than were returned (search.maxResults, or the 10 MB answer limit).'),
    },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    run: async ({ query, case_sensitive, regex }, extra) => {
      const outcome = await (await ctx.search()).search({
        query,
        caseSensitive: case_sensitive ?? defaults.caseSensitive,
        regex: regex ?? defaults.useRegex,
        wholeWord: defaults.wholeWord,
        maxResults: defaults.maxResults,
        // More characters than this cannot be sent (see fitAnswer): the search stops there instead of holding them.
        maxChars: Math.floor(maxBytes / 2),
        signal: extra.signal,
      });
      // Compact JSON text: indentation would make large result lists a third bigger on the pipe. The reply also
      // echoes the request id, which the client chose.
      return fitAnswer(outcome.results, outcome.truncated, maxBytes - Buffer.byteLength(JSON.stringify(extra.requestId ?? null)));
    },
  });
}
