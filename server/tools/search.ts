// Search tool: search_files.
import { z } from 'zod';
import type { NotesContext } from './context';
import { defineTool } from './define-tool';

export function registerSearchTools(ctx: NotesContext): void {
  const defaults = ctx.config.search;
  defineTool(ctx, {
    name: 'search_files',
    category: 'search',
    title: 'Search files',
    description: `Search the text of every note and text file in the workspace, line by line. Returns one result per matching line: the file, the 1-based line number, the line's text and the matched text. At most ${defaults.maxResults} results (search.maxResults); \`truncated\` says more existed. Whole-word matching is ${defaults.wholeWord ? 'on' : 'off'} (search.wholeWord). Regular expressions use JavaScript syntax; one that runs too long is stopped with an error.`,
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
      truncated: z.boolean().describe('True when more matches existed than search.maxResults.'),
    },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    run: async ({ query, case_sensitive, regex }, extra) => {
      const outcome = await (await ctx.search()).search({
        query,
        caseSensitive: case_sensitive ?? defaults.caseSensitive,
        regex: regex ?? defaults.useRegex,
        wholeWord: defaults.wholeWord,
        maxResults: defaults.maxResults,
        signal: extra.signal,
      });
      const structured = { results: outcome.results, count: outcome.results.length, truncated: outcome.truncated };
      // Compact JSON text: indentation would make large result lists a third bigger on the pipe.
      return { structured, text: JSON.stringify(structured) };
    },
  });
}
