// A note's structure from markdown-it tokens: headings, markdown links, [[wikilinks]], inline #tags, word count.
import { inlineSpan, lineOf, parseBlocks, wikilinkParts, type Token } from './markdown';

export interface Heading {
  level: number;
  text: string;
  line: number;
}

export interface RawLink {
  type: 'markdown' | 'wikilink';
  /** The target as written, without the #heading part. */
  target: string;
  heading: string | null;
  /** Link text, or the |alias of a wikilink (else its target). */
  text: string;
  line: number;
}

export interface NoteStructure {
  headings: Heading[];
  links: RawLink[];
  inlineTags: string[];
  wordCount: number;
  /** Prose of paragraphs and list items, one string per block, for summaries (table cells are not prose). */
  paragraphs: string[];
}

// Made on first use: a regular expression of Unicode property classes (\p{L}) takes 0.5-1 ms to create, which every
// start of the server paid as this module loaded, though the handshake parses no note.
let tagRe: RegExp | undefined;
let wordRe: RegExp | undefined;
// A tag starts after whitespace or an opening bracket, and is not only digits (so "#1" is not a tag).
const tagPattern = (): RegExp => (tagRe ??= /(^|[\s([{])#([\p{L}\p{N}_/-]*[\p{L}_/-][\p{L}\p{N}_/-]*)/gu);
const wordPattern = (): RegExp => (wordRe ??= /[\p{L}\p{N}][\p{L}\p{N}'’_-]*/gu);
const URL_SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/**
 * A markdown link's target and its `#heading`; a URL (`https://x/#/route`) is its target whole, fragment included.
 * The heading is URL-decoded (`#Some%20Heading` names the heading "Some Heading"), as wikilink headings read.
 */
function splitTarget(raw: string): { target: string; heading: string | null } {
  const hash = raw.indexOf('#');
  if (hash < 0 || URL_SCHEME.test(raw)) return { target: raw, heading: null };
  let heading = raw.slice(hash + 1);
  try {
    heading = decodeURIComponent(heading);
  } catch {
    // not percent-encoded: as written
  }
  return { target: raw.slice(0, hash), heading: heading || null };
}

/**
 * The inline `#tags` of a run of text. Not a tag: a `#` written escaped (`\#`, at the offsets in `escaped`). A `#`
 * inside a wikilink (`[[#heading]]`, `[[Note|see #x]]`) is in no text run: the link is a token of its own.
 */
function tagsOf(text: string, escaped: ReadonlySet<number>): string[] {
  const tags: string[] = [];
  for (const m of text.matchAll(tagPattern())) if (!escaped.has((m.index ?? 0) + m[1].length)) tags.push(m[2]);
  return tags;
}

/**
 * Walks one inline token; text is visited with its file line so multi-line paragraphs report exact lines.
 * `tags`: false in headings, where "#" text is a title (e.g. "Issue #notatag"), not a tag (README decision).
 * Text comes in runs: markdown-it's text tokens with its `text_special` ones (escapes, entities) between them, as
 * one string, so that a wikilink holding `&amp;` is one link and an escaped `\#` is known for what it is.
 */
function walkInline(inline: Token, firstLine: number, out: NoteStructure, prose: string[], tags: boolean, images: Set<number>): void {
  let line = firstLine;
  let openLink: { href: string; text: string; line: number } | undefined;
  const children = inline.children ?? [];
  for (let i = 0; i < children.length; i++) {
    const child = children[i];
    // Tokens made by an inline rule know the lines they came from (a code span, an image, a link's title or an HTML
    // tag may run over lines with no line-break token of their own); text lies where the token before it ended.
    const span = inlineSpan(child);
    if (span) line = firstLine + span.first;
    switch (child.type) {
      case 'softbreak':
      case 'hardbreak':
        if (!span) line++;
        prose.push(' ');
        if (openLink) openLink.text += ' ';
        break;
      case 'link_open':
        openLink = { href: String(child.attrGet('href') ?? ''), text: '', line };
        break;
      case 'link_close':
        if (openLink) {
          const { target, heading } = splitTarget(openLink.href);
          out.links.push({ type: 'markdown', target, heading, text: openLink.text, line: openLink.line });
        }
        openLink = undefined;
        break;
      case 'code_inline':
        prose.push(child.content);
        if (openLink) openLink.text += child.content;
        break;

      case 'text':
      case 'text_special': {
        let text = '';
        const escaped = new Set<number>();
        for (; i < children.length && (children[i].type === 'text' || children[i].type === 'text_special'); i++) {
          if (children[i].type === 'text_special' && children[i].info === 'escape') escaped.add(text.length);
          text += children[i].content;
        }
        i--;
        if (openLink) openLink.text += text;
        // Link text is the link's words: a `#` in it (`[#intro](x.md)`) is not a tag.
        if (tags && !openLink) for (const tag of tagsOf(text, escaped)) out.inlineTags.push(tag); // not push(...): a run may hold 100 000s
        prose.push(text);
        break;
      }
      case 'image':
        // Its alt text, in the block's prose for summaries only (so "planted ![tomato](t.png) and ![pepper](p.png)"
        // does not read "planted and and"); no word of the count, as it is not shown as text.
        if (child.content) {
          images.add(prose.length);
          prose.push(child.content);
        }
        break;
      case 'wikilink': {
        const { target, heading, alias } = wikilinkParts(child.content);
        // ![[embed]] is a transclusion, not a link.
        if (child.markup !== '!') out.links.push({ type: 'wikilink', target, heading, text: alias || target || heading || '', line });
        const shown = alias ?? target;
        prose.push(shown);
        if (openLink) openLink.text += `${child.markup}[[${child.content}]]`;
        break;
      }
      default:
        break;
    }
    if (span) line = firstLine + span.last;
  }
}

export function analyseBody(body: string, bodyLineOffset: number): NoteStructure {
  const out: NoteStructure = { headings: [], links: [], inlineTags: [], wordCount: 0, paragraphs: [] };
  const tokens = parseBlocks(body);
  // The line of the block around an inline token that has none of its own (a table cell: its row's line).
  let blockLine = 1 + bodyLineOffset;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.map) blockLine = lineOf(token, bodyLineOffset);
    if (token.type !== 'inline') continue;
    const prose: string[] = [];
    const images = new Set<number>();
    const opener = tokens[i - 1];
    const heading = opener?.type === 'heading_open';
    walkInline(token, blockLine, out, prose, !heading, images);
    const clean = (parts: readonly string[]) => parts.join('').replace(/\s+/g, ' ').trim();
    const text = clean(images.size ? prose.filter((_, at) => !images.has(at)) : prose);
    out.wordCount += text.match(wordPattern())?.length ?? 0;
    if (heading) {
      out.headings.push({ level: Number(opener.tag.slice(1)), text, line: blockLine });
    } else if (opener?.type !== 'td_open' && opener?.type !== 'th_open') {
      // Task markers are structure, not prose.
      const paragraph = (images.size ? clean(prose) : text).replace(/^\[[ xX/\-><?!]\]\s*/, '');
      if (paragraph) out.paragraphs.push(paragraph);
    }
  }
  out.inlineTags = [...new Set(out.inlineTags)];
  return out;
}
