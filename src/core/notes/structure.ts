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
  /**
   * Prose of paragraphs and list items as a reader sees it, one string per block, for summaries (table cells are
   * not prose); made only when asked for (analyseBody's `paragraphs`), else empty.
   */
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
 * A block's text as a reader sees it, for summaries: image alt text in, and the offsets where no markup is read
 * (code spans, escaped characters, link and image text), so readerText leaves `==` and `[^1]` there as written.
 */
class ShownText {
  readonly parts: string[] = [];
  readonly literal: Array<[number, number]> = [];
  /** Whether it differs from the words' prose by more than markup: an image's alt text is in it. */
  images = false;
  private length = 0;

  /** `escaped`: offsets in `text` of characters written escaped. */
  add(text: string, literal = false, escaped?: ReadonlySet<number>): void {
    if (literal) this.literal.push([this.length, this.length + text.length]);
    else if (escaped) for (const at of escaped) this.literal.push([this.length + at, this.length + at + 1]);
    this.parts.push(text);
    this.length += text.length;
  }
}

/**
 * The text with the markup markdown-it (without plugins) leaves in it taken out, as a reader sees it rendered: a
 * reference to a footnote the note defines (`fast[^1].`, one of `footnotes`) goes, and a highlight
 * (`==daily watering==`, Obsidian's and markdown-it-mark's) keeps its words. An `==` with white space on its inner
 * side (`a == b`), part of a longer run (`===`), or in code or escaped is no highlight mark.
 */
function readerText(shown: ShownText, footnotes: ReadonlySet<string> | undefined): string {
  const text = shown.parts.join('');
  const refs = footnotes !== undefined && footnotes.size > 0 && text.includes('[^');
  if (!refs && !text.includes('==')) return text;
  const literal = new Uint8Array(text.length);
  for (const [from, to] of shown.literal) literal.fill(1, from, to);
  const cuts: Array<[number, number]> = [];
  if (refs) {
    for (const m of text.matchAll(/\[\^([^\]\s]{1,100})\]/g)) {
      if (literal[m.index] || !footnotes.has(m[1])) continue;
      cuts.push([m.index, m.index + m[0].length]);
      literal.fill(1, m.index, m.index + m[0].length);
    }
  }
  // One pass, pairing each opening `==` with the first closing one after it (a regular expression looking ahead for
  // the closing one would go over the rest of the text from every opening one: a paragraph of "==x " repeated
  // would take time growing with its square).
  const visible = (c: string | undefined) => c !== undefined && c !== '=' && !/\s/.test(c);
  let open = -1;
  for (let at = text.indexOf('=='); at !== -1; at = text.indexOf('==', at + 2)) {
    if (literal[at] || literal[at + 1] || text[at - 1] === '=' || text[at + 2] === '=') continue;
    if (open !== -1 && visible(text[at - 1])) {
      cuts.push([open, open + 2], [at, at + 2]);
      open = -1;
    } else if (open === -1 && visible(text[at + 2])) open = at;
  }
  if (cuts.length === 0) return text;
  cuts.sort((a, b) => a[0] - b[0]);
  let out = '';
  let from = 0;
  for (const [start, end] of cuts) {
    out += text.slice(from, start);
    from = end;
  }
  return out + text.slice(from);
}

/**
 * Walks one inline token; text is visited with its file line so multi-line paragraphs report exact lines.
 * `tags`: false in headings, where "#" text is a title (e.g. "Issue #notatag"), not a tag (README decision).
 * Text comes in runs: markdown-it's text tokens with its `text_special` ones (escapes, entities) between them, as
 * one string, so that a wikilink holding `&amp;` is one link and an escaped `\#` is known for what it is.
 */
function walkInline(inline: Token, firstLine: number, out: NoteStructure, prose: string[], tags: boolean, shown: ShownText | undefined): void {
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
        shown?.add(' ');
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
        shown?.add(child.content, true);
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
        shown?.add(text, false, escaped);
        break;
      }
      case 'image':
        // Its alt text, in the text shown for summaries only (so "planted ![tomato](t.png) and ![pepper](p.png)"
        // does not read "planted and and"); no word of the count, as it is not shown as text.
        if (shown && child.content) {
          shown.images = true;
          shown.add(child.content, true);
        }
        break;
      case 'wikilink': {
        const { target, heading, alias } = wikilinkParts(child.content);
        // ![[embed]] is a transclusion, not a link.
        if (child.markup !== '!') out.links.push({ type: 'wikilink', target, heading, text: alias || target || heading || '', line });
        const linkText = alias ?? target;
        prose.push(linkText);
        shown?.add(linkText, true);
        if (openLink) openLink.text += `${child.markup}[[${child.content}]]`;
        break;
      }
      default:
        break;
    }
    if (span) line = firstLine + span.last;
  }
}

/** White space run together into one space, and none at the ends. */
function collapsed(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * `paragraphs`: whether to make them (summaries; they cost a second pass over each block's text), with `footnotes`,
 * the labels of the footnotes the note defines, whose references they leave out.
 */
export function analyseBody(body: string, bodyLineOffset: number, paragraphs?: { footnotes?: ReadonlySet<string> }): NoteStructure {
  const out: NoteStructure = { headings: [], links: [], inlineTags: [], wordCount: 0, paragraphs: [] };
  const tokens = parseBlocks(body);
  // The line of the block around an inline token that has none of its own (a table cell: its row's line).
  let blockLine = 1 + bodyLineOffset;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.map) blockLine = lineOf(token, bodyLineOffset);
    if (token.type !== 'inline') continue;
    const prose: string[] = [];
    const opener = tokens[i - 1];
    const heading = opener?.type === 'heading_open';
    const shown = paragraphs && !heading ? new ShownText() : undefined;
    walkInline(token, blockLine, out, prose, !heading, shown);
    const joined = prose.join('');
    const text = collapsed(joined);
    out.wordCount += text.match(wordPattern())?.length ?? 0;
    if (heading) {
      out.headings.push({ level: Number(opener.tag.slice(1)), text, line: blockLine });
    } else if (shown && text && opener?.type !== 'td_open' && opener?.type !== 'th_open') {
      // A block of images only (a row of badges) is no prose. Task markers are structure, not prose. A block with
      // no image and nothing readerText takes out reads as its words do.
      const plain = !shown.images && !joined.includes('==') && !joined.includes('[^');
      out.paragraphs.push((plain ? text : collapsed(readerText(shown, paragraphs?.footnotes))).replace(/^\[[ xX/\-><?!]\]\s*/, ''));
    }
  }
  out.inlineTags = [...new Set(out.inlineTags)];
  return out;
}
