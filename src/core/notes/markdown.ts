// The one markdown-it instance of the core: notes' structure (headings, links, tasks, text) comes from its tokens.
import MarkdownIt from 'markdown-it';

type Parser = ReturnType<typeof MarkdownIt>;
export type Token = MarkdownIt.Token;
type InlineState = Parameters<Parser['inline']['tokenize']>[0];
type InlineRule = (state: InlineState, silent: boolean) => boolean;

/** Lines of an inline token's source (0-based, counted in its block's text) on which an inline token starts and ends. */
export interface InlineSpan {
  first: number;
  last: number;
}

const spans = new WeakMap<Token, InlineSpan>();
const lineEnds = new WeakMap<InlineState, number[]>();

let instance: Parser | undefined;

const LOCATED_RULES = new Set(['backticks', 'link', 'image', 'autolink', 'html_inline']);
/**
 * Tokens that get no span: text (and a wikilink, which holds no line break) lies where the token before it ended,
 * and a line break is one line.
 */
const UNLOCATED = new Set(['text', 'text_special', 'softbreak', 'hardbreak', 'wikilink']);

export function markdown(): Parser {
  if (!instance) {
    instance = new MarkdownIt({ html: true, linkify: false });
    // Escapes and entities stay tokens of their own (`text_special`), so that structure.ts knows an escaped `\#`.
    instance.core.ruler.disable('text_join');
    const ruler = instance.inline.ruler;
    // The rules whose tokens may hold line breaks of their own; the others' line breaks are softbreak and hardbreak
    // tokens, one line each, or they make text, which holds none.
    for (const rule of [...ruler.__rules__]) if (LOCATED_RULES.has(rule.name)) ruler.at(rule.name, located(rule.fn), { alt: rule.alt });
    // Before emphasis and links: `[[__init__]]` and `[[Report _final_]]` are links, not emphasis in brackets.
    ruler.before('strikethrough', 'wikilink', wikilink);
    // Link destinations as written (`café.md`, `<My File.md>`), not percent-encoded for HTML: notes are analysed
    // here, never rendered. Resolving a target URL-decodes it (links.ts).
    instance.normalizeLink = (url: string) => url;
  }
  return instance;
}

// No class holds `[`: a run of `[[` fails at the next `[` instead of scanning on to the line's end from every start.
const WIKILINK_AT = /(!?)\[\[([^[\]\n]*)\]\]/y;

/**
 * `[[target#heading|alias]]` (and the embed `![[…]]`) as one `wikilink` token: `markup` is `!` for an embed,
 * `content` the text between the brackets as written (see wikilinkParts). Not in silent mode, which markdown-it
 * uses only to scan a link's text (parseLinkLabel): there a token starting with `[` would read as a link inside a
 * link and undo `[see [[Note]]](x.md)`, while brackets read as text keep their count; the text is then tokenized
 * with this rule on.
 */
function wikilink(state: InlineState, silent: boolean): boolean {
  if (silent) return false;
  const c = state.src.charCodeAt(state.pos);
  if (c !== 0x5b /* [ */ && c !== 0x21 /* ! */) return false;
  WIKILINK_AT.lastIndex = state.pos;
  const m = WIKILINK_AT.exec(state.src);
  if (!m) return false;
  const token = state.push('wikilink', '', 0);
  token.markup = m[1];
  token.content = m[2];
  state.pos += m[0].length;
  return true;
}

/**
 * A wikilink's parts: before the first `|` the target and, after its first `#`, the heading; after it the alias.
 * `\|` separates too (the way to write one in a table cell); escapes and entities read as text (`[[Tom &amp; Jerry]]`).
 */
export function wikilinkParts(content: string): { target: string; heading: string | null; alias: string | null } {
  const inner = content.replace(/\\\|/g, '|');
  const bar = inner.indexOf('|');
  const left = bar < 0 ? inner : inner.slice(0, bar);
  const hash = left.indexOf('#');
  const text = (raw: string) => markdown().utils.unescapeAll(raw).trim();
  return {
    target: text(hash < 0 ? left : left.slice(0, hash)),
    heading: hash < 0 ? null : text(left.slice(hash + 1)) || null,
    alias: bar < 0 ? null : text(inner.slice(bar + 1)) || null,
  };
}

/** Number of line breaks in `state.src` before `pos`. */
function lineAt(state: InlineState, pos: number): number {
  let ends = lineEnds.get(state);
  if (!ends) {
    ends = [];
    for (let at = state.src.indexOf('\n'); at !== -1; at = state.src.indexOf('\n', at + 1)) ends.push(at);
    lineEnds.set(state, ends);
  }
  let low = 0;
  let high = ends.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (ends[mid] < pos) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * An inline rule that records the lines of the source each token it pushes came from. markdown-it's inline tokens
 * carry no position, and line breaks inside a code span, an image, a link's destination or title, or an HTML tag are
 * in no token of their own; without this, everything after them on later lines was given too early a line. The
 * tokens of UNLOCATED are left out (a link's rule pushes its text's tokens too, which lie on the lines they lie on).
 */
function located(rule: InlineRule): InlineRule {
  return (state, silent) => {
    const start = state.pos;
    const pushed = state.tokens.length;
    const matched = rule(state, silent);
    if (matched && !silent && state.tokens.length > pushed) {
      const first = lineAt(state, start);
      const span = { first, last: lineAt(state, state.pos) };
      // An opening token (link_open) ends where it starts: what it holds follows it.
      const opening = { first, last: first };
      for (let k = pushed; k < state.tokens.length; k++) {
        const token = state.tokens[k];
        if (!UNLOCATED.has(token.type) && !spans.has(token)) spans.set(token, token.nesting === 1 ? opening : span);
      }
    }
    return matched;
  };
}

/** Where an inline token came from in its block's text, when an inline rule made it (not for text tokens). */
export function inlineSpan(token: Token): InlineSpan | undefined {
  return spans.get(token);
}

export function parseBlocks(body: string): Token[] {
  return markdown().parse(body, {});
}

/** 1-based line of a block token in the file, given the lines taken by the frontmatter. */
export function lineOf(token: Token, bodyLineOffset: number): number {
  return (token.map?.[0] ?? 0) + 1 + bodyLineOffset;
}
