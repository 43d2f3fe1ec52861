// Search tool: search_files.
import { z } from 'zod';
import { decodeMatches, matchBytes, type SearchResultItem } from '../../src/core/workspace/encoded-matches';
import type { NotesConfig } from '../../src/core/config/schema';
import { MAX_QUERY_LENGTH, type SearchOutcome } from '../../src/core/workspace/search';
import { REPLY_ROOM } from '../limits';
import { lazyArray, type EncodedAnswer } from '../structured-json';
import type { NotesContext } from './context';
import { defineTool, maxReplyBytes, replyBytesFor } from './define-tool';

const OPEN_JSON = Buffer.from('{"results":[');
const OPEN_TEXT = Buffer.from(JSON.stringify(OPEN_JSON.toString()).slice(1, -1));

/**
 * The answer { results, count, truncated }: its JSON text, its bytes (see EncodedAnswer) and the structured result,
 * whose records are decoded from the text only if something looks at them. The first results of `found` that fit
 * in one reply of `maxBytes`, which carries each twice, as JSON in structuredContent and escaped inside the text
 * block. The bytes of every result are known, so the cut is exact: an answer is cut only when it must be, at the
 * last result that fits.
 */
export function fitAnswer(found: SearchOutcome['answer'], truncated: boolean, maxBytes: number): { structured: { results: SearchResultItem[]; count: number; truncated: boolean }; json: string; answer: EncodedAnswer } {
  const budget = maxBytes - REPLY_ROOM;
  const { matches } = found;
  const size = (k: number) => {
    const bytes = matchBytes(matches, k);
    return bytes.json + bytes.text;
  };
  let count = found.count;
  if (size(count) > budget) {
    let fits = 0;
    let over = count;
    while (over - fits > 1) {
      const mid = (fits + over) >>> 1;
      if (size(mid) <= budget) fits = mid;
      else over = mid;
    }
    count = fits;
    truncated = true;
  }
  const { json, text, chars } = matchBytes(matches, count);
  const close = `],"count":${count},"truncated":${truncated}}`;
  return {
    structured: { results: lazyArray(() => decodeMatches(matches, count)), count, truncated },
    json: `{"results":[${matches.chars.slice(0, chars)}${close}`,
    answer: {
      json: [OPEN_JSON, matches.json.subarray(0, json), Buffer.from(close)],
      text: [OPEN_TEXT, matches.text.subarray(0, text), Buffer.from(JSON.stringify(close).slice(1, -1))],
    },
  };
}

/** The description and arguments of search_files, which quote the search settings in force. */
function describeSearch(config: NotesConfig) {
  const defaults = config.search;
  return {
    description: `Search the text of every note and text file in the workspace, line by line. Returns one result per matching line: the file, the 1-based line number, the line's text and the matched text. At most ${defaults.maxResults} results (search.maxResults), and no more than fit in a 10 MB answer; \`truncated\` says more existed. Whole-word matching is ${defaults.wholeWord ? 'on' : 'off'} (search.wholeWord). Regular expressions use JavaScript syntax; one that runs too long is stopped with an error.`,
    input: {
      query: z.string().min(1).describe(`Text to find, or a JavaScript regular expression when \`regex\` is true; at most ${MAX_QUERY_LENGTH} characters.`),
      case_sensitive: z.boolean().optional().describe(`Match case exactly (default ${defaults.caseSensitive}, from search.caseSensitive).`),
      regex: z.boolean().optional().describe(`Treat the query as a regular expression (default ${defaults.useRegex}, from search.useRegex).`),
    },
  };
}

export function registerSearchTools(ctx: NotesContext): void {
  const maxBytes = maxReplyBytes(ctx);
  defineTool(ctx, {
    name: 'search_files',
    category: 'search',
    title: 'Search files',
    ...describeSearch(ctx.config),
    describe: describeSearch,
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
      // The settings in force now: a running server takes changes to the config file from the next request on.
      const defaults = ctx.config.search;
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
      return fitAnswer(outcome.answer, outcome.truncated, replyBytesFor(ctx, extra));
    },
  });
}
