// The one markdown-it instance of the core: notes' structure (headings, links, tasks, text) comes from its tokens.
import MarkdownIt from 'markdown-it';

type Parser = ReturnType<typeof MarkdownIt>;
export type Token = MarkdownIt.Token;

let instance: Parser | undefined;

export function markdown(): Parser {
  instance ??= new MarkdownIt({ html: true, linkify: false });
  return instance;
}

export function parseBlocks(body: string): Token[] {
  return markdown().parse(body, {});
}

/** 1-based line of a block token in the file, given the lines taken by the frontmatter. */
export function lineOf(token: Token, bodyLineOffset: number): number {
  return (token.map?.[0] ?? 0) + 1 + bodyLineOffset;
}
