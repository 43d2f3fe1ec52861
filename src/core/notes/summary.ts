// Deterministic extractive summary: the note's most representative sentences, in their original order.
import { splitNote } from './frontmatter';
import { analysedPart } from './limits';
import { analyseBody } from './structure';

const STOPWORDS = new Set(
  'a an and are as at be but by for from has have he her his i if in into is it its of on or our she so that the their them then there these they this to was we were what when which who will with you your not can do does did been also than too very just about over under more most some such only own same other'.split(
    ' ',
  ),
);

/** Made on first use, as creating a segmenter loads ICU's break rules (see templates.ts). */
let segmenter: Intl.Segmenter | undefined;
/** Abbreviations after which Unicode sentence breaking wrongly ends a sentence ("e.g. Node", "Dr. Smith"). */
const ABBREVIATION_END = /(?:^|[\s(])(?:e\.g|i\.e|etc|vs|cf|approx|no|fig|mr|mrs|ms|dr|prof|st|jr|sr|inc|ltd|[a-z])\.$/i;

/**
 * The longest text segmented at once. V8's sentence segmenter takes time that grows with the square of a text over
 * some 64 KiB (128 KiB took 6.5 s here, 256 KiB 23 s, 8 KiB 5 ms): a long paragraph is segmented in pieces.
 */
const SEGMENTED_AT_ONCE = 8 * 1024;

/**
 * The paragraph's sentence segments, in order, every character in one. Each piece's last segment may go on past
 * the piece, so it is segmented again with what follows; a piece with no sentence end in it is one segment.
 */
export function* sentenceSegments(paragraph: string): Generator<string> {
  segmenter ??= new Intl.Segmenter('en', { granularity: 'sentence' });
  let start = 0;
  while (start < paragraph.length) {
    let end = Math.min(paragraph.length, start + SEGMENTED_AT_ONCE);
    // Never between the two halves of a character beyond the BMP.
    if (end < paragraph.length && /[\uD800-\uDBFF]/.test(paragraph[end - 1])) end--;
    const piece = paragraph.slice(start, end);
    const parts = Array.from(segmenter.segment(piece), (s) => s.segment);
    if (end === paragraph.length) {
      yield* parts;
      return;
    }
    if (parts.length > 1) {
      const last = parts.pop() as string;
      yield* parts;
      start = end - last.length;
    } else {
      yield piece;
      start = end;
    }
  }
}

/** The paragraph's sentences, whole: every character of the paragraph ends up in exactly one of them. */
function sentences(paragraph: string): string[] {
  const out: string[] = [];
  let carried = '';
  // The last segment ended in white space: what comes next was apart from it.
  let apart = false;
  for (const segment of sentenceSegments(paragraph)) {
    const sentence = (carried + segment).trim();
    carried = '';
    if (sentence.length > 0 && out.length > 0 && !/[\p{L}\p{N}]/u.test(sentence)) {
      // No letter or digit: markup that closes the sentence before it, after its full stop (`tomatoes.==`, a highlight
      // Unicode breaks after the `.`), not a sentence of its own to be kept, dropped or joined with a space apart.
      out[out.length - 1] += (apart || /^\s/.test(segment) ? ' ' : '') + sentence;
    } else if (ABBREVIATION_END.test(sentence)) carried = `${sentence} `;
    else if (sentence.length > 0) out.push(sentence);
    apart = /\s$/.test(segment);
  }
  if (carried.trim()) out.push(carried.trim());
  return out;
}

function words(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? []).filter((w) => !STOPWORDS.has(w) && w.length > 2);
}

/**
 * Ends in punctuation that closes a sentence or leads on to what follows (`.`, `?`, `:`, `,`, `。`...), perhaps
 * inside closing quotes or brackets. A list item or a line of text often has none: followed by another sentence
 * in a summary, it gets a full stop, so that "Buy seeds" and "Plant tomatoes" do not read as one sentence.
 */
let punctuatedEndRe: RegExp | undefined;
/** Made on first use, not as the module loads (Unicode property classes make it costly to create, see structure.ts). */
const punctuatedEnd = (): RegExp => (punctuatedEndRe ??= /[.!?…:;,。！？‼⁇⁈⁉：；，、][\p{Pe}\p{Pf}"'*_`~]*$/u);

/** The sentences joined with spaces; each one without punctuation at its end and followed by another gets a `.`. */
function joinSentences(sentences: readonly string[]): string {
  return sentences.map((s, i) => (i < sentences.length - 1 && !punctuatedEnd().test(s) ? `${s}.` : s)).join(' ');
}

/** The first `length` UTF-16 units of `text`, one fewer when the cut would split a surrogate pair (an emoji). */
export function headOf(text: string, length: number): string {
  let end = Math.max(0, Math.min(length, text.length));
  if (end > 0 && end < text.length && /[\uD800-\uDBFF]/.test(text[end - 1])) end--;
  return text.slice(0, end);
}

/** `text` cut to at most `maxLength` characters, at a space where one is near, ending in `…`. */
export function clip(text: string, maxLength: number): string {
  if (text.length <= maxLength) return text;
  const cut = headOf(text, maxLength - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > maxLength / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** A line that starts a block of its own, so it cannot continue a paragraph (a footnote's text) lazily. */
const BLOCK_START = /^ {0,3}(?:```|~~~|#{1,6}(?:\s|$)|[-*+](?:\s|$)|\d{1,9}[.)](?:\s|$)|>|<|(?:[*_-][ \t]*){3,}$|\[\^[^\]\s]{1,100}\]:)/;
/** A footnote's definition: `[^1]: Seen in the 2024 notes.` at the start of a line. */
const FOOTNOTE_DEFINITION = /^ {0,3}\[\^([^\]\s]{1,100})\]:/;

/**
 * The body without its footnotes' definitions, and their labels. A definition is a note on the text, shown apart
 * from it: its line is emptied, and so are the lines that continue it (indented under it, after blank lines too, or
 * the lines of its paragraph that follow it), as markdown-it-footnote reads them.
 */
function withoutFootnoteDefinitions(body: string): { body: string; labels: Set<string> } {
  const labels = new Set<string>();
  if (!body.includes('[^')) return { body, labels };
  const lines = body.split('\n');
  // In a definition; and whether the line before was blank (a line not indented then ends it).
  let inside = false;
  let afterBlank = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const definition = FOOTNOTE_DEFINITION.exec(line);
    const blank = line.trim() === '';
    if (definition) {
      labels.add(definition[1]);
      inside = true;
    } else if (!inside || blank) {
      afterBlank = blank;
      continue;
    } else if (!/^(?: {4}|\t)/.test(line) && (afterBlank || BLOCK_START.test(line))) {
      inside = false;
      afterBlank = false;
      continue;
    }
    lines[i] = '';
    afterBlank = false;
  }
  return { body: lines.join('\n'), labels };
}

/**
 * Scores each sentence by the frequency of its content words across the note (normalised by length, with a small
 * bonus for the opening sentence), then keeps the best sentences that fit in `maxLength` characters.
 */
export function extractiveSummary(text: string, maxLength: number): string {
  // Sentences past the first 1 MB are not scored: the summary stays fast on huge notes.
  const { body, bodyLineOffset } = splitNote(analysedPart(text).text);
  const read = withoutFootnoteDefinitions(body);
  const all = analyseBody(read.body, bodyLineOffset, { footnotes: read.labels }).paragraphs.flatMap(sentences);
  if (all.length === 0) return '';
  const freq = new Map<string, number>();
  for (const s of all) for (const w of words(s)) freq.set(w, (freq.get(w) ?? 0) + 1);
  const scored = all.map((s, index) => {
    const ws = words(s);
    const score = ws.length ? ws.reduce((sum, w) => sum + (freq.get(w) ?? 0), 0) / Math.sqrt(ws.length) : 0;
    // The full stop it gets unless it comes last (see joinSentences).
    return { s, index, score: score + (index === 0 ? 1 : 0), stop: punctuatedEnd().test(s) ? 0 : 1 };
  });
  const ranked = [...scored].sort((a, b) => b.score - a.score || a.index - b.index);
  const chosen: typeof scored = [];
  // The chosen sentences' lengths with their full stops and the spaces between them; the last one, in the note's
  // order, gets no full stop.
  let length = 0;
  let last: (typeof scored)[number] | undefined;
  for (const candidate of ranked) {
    const extra = candidate.s.length + candidate.stop + (chosen.length ? 1 : 0);
    const lastThen = last && last.index > candidate.index ? last : candidate;
    if (length + extra - lastThen.stop > maxLength) continue;
    chosen.push(candidate);
    length += extra;
    last = lastThen;
  }
  if (chosen.length === 0) return clip(ranked[0].s, maxLength);
  return joinSentences(chosen.sort((a, b) => a.index - b.index).map((c) => c.s));
}
