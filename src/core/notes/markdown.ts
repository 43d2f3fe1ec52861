// The one markdown-it instance of the core: notes' structure (headings, links, tasks, text) comes from its tokens.
import MarkdownIt from 'markdown-it';

type Parser = ReturnType<typeof MarkdownIt>;
export type Token = MarkdownIt.Token;

let instance: Parser | undefined;

export function markdown(): Parser {
  if (!instance) {
    instance = new MarkdownIt({ html: true, linkify: false });
    // Escapes and entities stay tokens of their own (`text_special`), so that structure.ts knows an escaped `\#`.
    instance.core.ruler.disable('text_join');
  }
  return instance;
}

export function parseBlocks(body: string): Token[] {
  return markdown().parse(body, {});
}

/** 1-based line of a block token in the file, given the lines taken by the frontmatter. */
export function lineOf(token: Token, bodyLineOffset: number): number {
  return (token.map?.[0] ?? 0) + 1 + bodyLineOffset;
}
