// Search tool: search_files.
import { z } from 'zod';
import { matchBytes } from '../../src/core/workspace/encoded-matches';
import type { NotesConfig } from '../../src/core/config/schema';
import { MAX_QUERY_LENGTH, type SearchOutcome } from '../../src/core/workspace/search';
import { REPLY_ROOM } from '../limits';
import type { EncodedAnswer } from '../structured-json';
import type { NotesContext } from './context';
import { defineJsonTool, maxReplyBytes, replyBytesFor } from './define-tool';

const OPEN_TEXT = Buffer.from(JSON.stringify('{"results":[').slice(1, -1));

/**
 * The answer { results, count, truncated } as its text block holds it (see EncodedAnswer): the first results of
 * `found` that fit in one reply of `maxBytes`. The bytes of every result are known, so the cut is exact: an answer is
 * cut only when it must be, at the last result that fits.
 */
export function fitAnswer(found: SearchOutcome['answer'], truncated: boolean, maxBytes: number): { answer: EncodedAnswer } {
  const budget = maxBytes - REPLY_ROOM;
  const { matches } = found;
  let count = found.count;
  if (matchBytes(matches, count) > budget) {
    let fits = 0;
    let over = count;
    while (over - fits > 1) {
      const mid = (fits + over) >>> 1;
      if (matchBytes(matches, mid) <= budget) fits = mid;
      else over = mid;
    }
    count = fits;
    truncated = true;
  }
  const close = `],"count":${count},"truncated":${truncated}}`;
  return { answer: { text: [OPEN_TEXT, matches.text.subarray(0, matchBytes(matches, count)), Buffer.from(JSON.stringify(close).slice(1, -1))] } };
}

/** The description and arguments of search_files, which quote the search settings in force. */
function describeSearch(config: NotesConfig) {
  const defaults = config.search;
  return {
    description: `Search the text of every note and text file in the workspace, line by line. Answers JSON {"results": [{"file", "line", "content", "match"}], "count", "truncated"}: one result per matching line, in path order then line order, with the workspace-relative file, the 1-based line number, the line's text and the matched text. At most ${defaults.maxResults} results (search.maxResults), and no more than fit in a 10 MB answer; \`truncated\` says more existed. Whole-word matching is ${defaults.wholeWord ? 'on' : 'off'} (search.wholeWord). Regular expressions use JavaScript syntax; one that runs too long is stopped with an error.`,
    input: {
      query: z.string().min(1).describe(`Text to find, or a JavaScript regular expression when \`regex\` is true; at most ${MAX_QUERY_LENGTH} characters.`),
      case_sensitive: z.boolean().optional().describe(`Match case exactly (default ${defaults.caseSensitive}, from search.caseSensitive).`),
      regex: z.boolean().optional().describe(`Treat the query as a regular expression (default ${defaults.useRegex}, from search.useRegex).`),
    },
  };
}

export function registerSearchTools(ctx: NotesContext): void {
  const maxBytes = maxReplyBytes(ctx);
  defineJsonTool(ctx, {
    name: 'search_files',
    category: 'search',
    title: 'Search files',
    ...describeSearch(ctx.config),
    describe: describeSearch,
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
        // Half the largest answer: a search that matches everything stops there (answers of up to about 5 MB, which
        // no model reads whole anyway), which bounds the memory its matches and their copies take: on 50 000 notes a
        // peak of 219-228 MiB (270-291 MiB while the JSON was also made as a string, when stopping at the limit
        // itself, 20 237 results, reached 311-326 MiB).
        maxChars: Math.floor(maxBytes / 2),
        signal: extra.signal,
      });
      // Compact JSON text: indentation would make large result lists a third bigger on the pipe. The reply also
      // echoes the request id, which the client chose.
      return fitAnswer(outcome.answer, outcome.truncated, replyBytesFor(ctx, extra));
    },
  });
}
