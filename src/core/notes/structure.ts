// A note's structure from markdown-it tokens: headings, markdown links, [[wikilinks]], inline #tags, word count.
import { lineOf, parseBlocks, type Token } from './markdown';

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
  /** Prose of paragraphs and list items, one string per block, for summaries. */
  paragraphs: string[];
}

const WIKILINK = /(!?)\[\[([^\]\n|#]*)(?:#([^\]\n|]*))?(?:\|([^\]\n]*))?\]\]/g;
// A tag starts after whitespace or an opening bracket, and is not only digits (so "#1" is not a tag).
const TAG = /(^|[\s([{])#([\p{L}\p{N}_/-]*[\p{L}_/-][\p{L}\p{N}_/-]*)/gu;
const WORD = /[\p{L}\p{N}][\p{L}\p{N}'’_-]*/gu;

function splitTarget(raw: string): { target: string; heading: string | null } {
  const hash = raw.indexOf('#');
  if (hash < 0) return { target: raw, heading: null };
  return { target: raw.slice(0, hash), heading: raw.slice(hash + 1) || null };
}

/**
 * Walks one inline token; text is visited with its file line so multi-line paragraphs report exact lines.
 * `tags`: false in headings, where "#" text is a title (e.g. "Issue #notatag"), not a tag (README decision).
 */
function walkInline(inline: Token, firstLine: number, out: NoteStructure, prose: string[], tags: boolean): void {
  let line = firstLine;
  let openLink: { href: string; text: string; line: number } | undefined;
  for (const child of inline.children ?? []) {
    switch (child.type) {
      case 'softbreak':
      case 'hardbreak':
        line++;
        prose.push(' ');
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
      case 'text': {
        const text = child.content;
        if (openLink) openLink.text += text;
        for (const m of text.matchAll(WIKILINK)) {
          if (m[1] === '!') continue; // ![[embed]] is a transclusion, not a link
          const target = m[2].trim();
          const heading = m[3]?.trim() || null;
          out.links.push({ type: 'wikilink', target, heading, text: m[4]?.trim() || target || heading || '', line });
        }
        if (tags) for (const m of text.matchAll(TAG)) out.inlineTags.push(m[2]);
        prose.push(text.replace(WIKILINK, (_s: string, _b: string, target: string, heading?: string, alias?: string) => alias ?? target ?? heading ?? ''));
        break;
      }
      default:
        break;
    }
  }
}

export function analyseBody(body: string, bodyLineOffset: number): NoteStructure {
  const out: NoteStructure = { headings: [], links: [], inlineTags: [], wordCount: 0, paragraphs: [] };
  const tokens = parseBlocks(body);
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.type !== 'inline') continue;
    const prose: string[] = [];
    const opener = tokens[i - 1];
    const heading = opener?.type === 'heading_open';
    walkInline(token, lineOf(token, bodyLineOffset), out, prose, !heading);
    const text = prose.join('').replace(/\s+/g, ' ').trim();
    out.wordCount += text.match(WORD)?.length ?? 0;
    if (heading) {
      out.headings.push({ level: Number(opener.tag.slice(1)), text, line: lineOf(token, bodyLineOffset) });
    } else if (text) {
      // Task markers are structure, not prose.
      out.paragraphs.push(text.replace(/^\[[ xX/\-><?!]\]\s*/, ''));
    }
  }
  out.inlineTags = [...new Set(out.inlineTags)];
  return out;
}
