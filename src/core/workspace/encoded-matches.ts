// A search's matches as the bytes of its answer. The text worker that finds them writes each result's JSON there and
// then, escaped as the answer's text block holds it, in UTF-8, so the protocol thread neither builds the result
// objects, nor serialises them, nor encodes them: it joins the workers' bytes and writes them out. On the
// benchmark's regular expression (8 386 results, an 8.6 MB answer when it still came twice) that work took the
// protocol thread about 90 ms.
import type { LineMatch } from './match';

/** One search result, as search_files answers it. */
export interface SearchResultItem {
  file: string;
  /** 1-based line number. */
  line: number;
  /** The matching line (long lines are clipped around the match). */
  content: string;
  /** The text the query matched. */
  match: string;
}

/**
 * Results in order, each as `JSON.stringify(result)` writes it followed by a comma: in `text` escaped as characters
 * of a JSON string, in UTF-8 (every `"` and `\` preceded by a `\`: JSON.stringify's output holds no other character
 * a string must escape), and in `chars` as a string, where the last result's comma may be left out (its end is then
 * one past the string's). A prefix of the results is therefore a prefix of each.
 */
export interface EncodedMatches {
  /** For each file with results, in order: its index in the list searched, and its number of results. */
  files: Int32Array;
  /** For each result, in order: where it ends (after its comma) in `text`, and in `chars`. */
  ends: Int32Array;
  text: Uint8Array;
  chars: string;
}

/** Entries of EncodedMatches.ends for each result. */
const ENDS = 2;

/**
 * Encodes the matches `found` on `paths` (see EncodedMatches). Self-contained on purpose: its source text also runs
 * inside the text worker, so it must not refer to anything outside itself. The bytes lie in buffers of their own,
 * never Node's shared pool, so that they can be moved to another thread.
 *
 * Each result is written as its JSON and as that JSON escaped, in one string each, the escaped one converted to
 * UTF-8 straight into the buffer (one call into native code a result, which also gives its end). A string with no
 * quote, backslash, control character or surrogate, which is nearly every path and line of a note, is written as
 * it is between quotes, as JSON.stringify would write it, and escaped by adding a backslash before those quotes;
 * any other goes through JSON.stringify, twice for the escaped copy. On the benchmark's regular expression (8 386
 * results, 4.4 MB) this takes 44-48 ms a search where serialising all the results at once, converting that to UTF-8
 * and escaping it byte by byte took 65-98 ms, and 68-80 ms on a worker's first search where that took 100-174 ms.
 */
export function encodeMatches(paths: readonly string[], found: ReadonlyArray<readonly [number, readonly LineMatch[]]>): EncodedMatches {
  const ENDS = 2; // (see EncodedMatches.ends; repeated here, which runs in the worker on its own)
  const files = new Int32Array(found.length * 2);
  let count = 0;
  let room = 0;
  for (const [index, lines] of found) {
    count += lines.length;
    for (const [, content, match] of lines) room += paths[index].length + content.length + match.length;
  }
  const ends = new Int32Array(count * ENDS);
  if (count === 0) return { files, ends, text: new Uint8Array(0), chars: '' };
  /** Finds what JSON.stringify would escape (a surrogate only when alone, but any is sent the slow way). */
  const special = /["\\\u0000-\u001f\ud800-\udfff]/;
  // Room for text with nothing to escape, in one byte a character (each result's names, line number and punctuation
  // take under 64), and some more; grown when a result might not fit (UTF-8 takes at most 3 bytes a UTF-16 unit).
  let text = Buffer.allocUnsafeSlow(room + (room >> 3) + count * 64);
  const chars: string[] = [];
  let at = 0;
  let length = 0;
  let r = 0;
  for (let f = 0; f < found.length; f++) {
    const [index, lines] = found[f];
    files[f * 2] = index;
    files[f * 2 + 1] = lines.length;
    const file = paths[index];
    const filePlain = !special.test(file);
    const fileJson = filePlain ? `"${file}"` : JSON.stringify(file);
    const fileText = filePlain ? `\\"${file}\\"` : JSON.stringify(fileJson).slice(1, -1);
    for (const [line, content, match] of lines) {
      const contentPlain = !special.test(content);
      const matchPlain = !special.test(match);
      const contentJson = contentPlain ? `"${content}"` : JSON.stringify(content);
      const matchJson = matchPlain ? `"${match}"` : JSON.stringify(match);
      const result = `{"file":${fileJson},"line":${line},"content":${contentJson},"match":${matchJson}},`;
      chars.push(result);
      length += result.length;
      const contentText = contentPlain ? `\\"${content}\\"` : JSON.stringify(contentJson).slice(1, -1);
      const matchText = matchPlain ? `\\"${match}\\"` : JSON.stringify(matchJson).slice(1, -1);
      const escaped = `{\\"file\\":${fileText},\\"line\\":${line},\\"content\\":${contentText},\\"match\\":${matchText}},`;
      if (text.length - at < escaped.length * 3) {
        const grown = Buffer.allocUnsafeSlow(Math.max(text.length * 2, at + escaped.length * 3));
        text.copy(grown, 0, 0, at);
        text = grown;
      }
      at += text.write(escaped, at);
      ends[r * ENDS] = at;
      ends[r * ENDS + 1] = length;
      r++;
    }
  }
  // The last result's comma is left out of `chars` (its end stays one past the string's).
  return { files, ends, text: new Uint8Array(text.buffer, text.byteOffset, at), chars: chars.join('').slice(0, -1) };
}

/**
 * Encoded matches as a worker posts them: `chars` as the string's own bytes (Latin-1 when every character fits in
 * one, else UTF-16), moved to the other thread with the other arrays. Posted as a string, the 4.4 MB of the
 * benchmark's regular expression were copied on both threads (14-17 ms); as bytes, the receiver only makes the
 * string from them (one copy, no decoding).
 */
export interface PostedMatches extends Omit<EncodedMatches, 'chars'> {
  chars: Uint8Array;
  latin1: boolean;
}

/** `matches` to post, and the buffers to move. Self-contained: also runs inside the text worker. */
export function postedMatches(matches: EncodedMatches): { posted: PostedMatches; move: ArrayBuffer[] } {
  const latin1 = !/[\u0100-\uffff]/.test(matches.chars);
  const raw = Buffer.allocUnsafeSlow(matches.chars.length * (latin1 ? 1 : 2));
  raw.write(matches.chars, 0, latin1 ? 'latin1' : 'utf16le');
  const chars = new Uint8Array(raw.buffer, raw.byteOffset, raw.length);
  const posted = { files: matches.files, ends: matches.ends, text: matches.text, chars, latin1 };
  return { posted, move: [posted.files.buffer, posted.ends.buffer, posted.text.buffer, chars.buffer] as ArrayBuffer[] };
}

/** Posted matches as they were encoded. */
export function receivedMatches(posted: PostedMatches): EncodedMatches {
  const raw = Buffer.from(posted.chars.buffer, posted.chars.byteOffset, posted.chars.byteLength);
  return { files: posted.files, ends: posted.ends, text: posted.text, chars: raw.toString(posted.latin1 ? 'latin1' : 'utf16le') };
}

export function matchCount(matches: EncodedMatches): number {
  return matches.ends.length / ENDS;
}

/** What the first `count` results take in `text` (bytes) and `chars`, commas between them included. */
export function matchBytes(matches: EncodedMatches, count: number): { text: number; chars: number } {
  if (count <= 0) return { text: 0, chars: 0 };
  return { text: matches.ends[count * ENDS - 2] - 1, chars: matches.ends[count * ENDS - 1] - 1 };
}

/**
 * The matches of several searches of parts of one list, as one search of the whole list: `index` maps each part's
 * file indexes to the list's. Files come out in list order (parts hold disjoint files).
 */
export function mergeMatches(parts: ReadonlyArray<{ matches: EncodedMatches; index: readonly number[] }>): EncodedMatches {
  if (parts.length === 1) {
    const { matches, index } = parts[0];
    const files = matches.files.slice();
    for (let f = 0; f < files.length; f += 2) files[f] = index[files[f]];
    return { ...matches, files };
  }
  /** [index in the list, part, first result, results], for each file with results. */
  const entries: Array<[number, number, number, number]> = [];
  let count = 0;
  let textBytes = 0;
  parts.forEach(({ matches, index }, p) => {
    let first = 0;
    for (let f = 0; f < matches.files.length; f += 2) {
      entries.push([index[matches.files[f]], p, first, matches.files[f + 1]]);
      first += matches.files[f + 1];
    }
    count += first;
    textBytes += matches.text.length;
  });
  entries.sort((a, b) => a[0] - b[0]);
  const files = new Int32Array(entries.length * 2);
  const ends = new Int32Array(count * ENDS);
  const text = new Uint8Array(textBytes);
  const chars: string[] = [];
  const at = [0, 0];
  let r = 0;
  entries.forEach(([index, p, first, n], f) => {
    files[f * 2] = index;
    files[f * 2 + 1] = n;
    const from = parts[p].matches;
    const start = [0, 1].map((k) => (first === 0 ? 0 : from.ends[(first - 1) * ENDS + k]));
    for (let i = first; i < first + n; i++, r++) for (let k = 0; k < ENDS; k++) ends[r * ENDS + k] = at[k] + from.ends[i * ENDS + k] - start[k];
    const end = [0, 1].map((k) => from.ends[(first + n - 1) * ENDS + k]);
    text.set(from.text.subarray(start[0], end[0]), at[0]);
    chars.push(from.chars.slice(start[1], end[1]));
    if (end[1] > from.chars.length) chars.push(','); // the comma left out of that part's last result
    for (let k = 0; k < ENDS; k++) at[k] += end[k] - start[k];
  });
  return { files, ends, text, chars: chars.join('') };
}

/** The results of `matches` in files up to and including the file at `index` of the list searched: a prefix. */
export function matchesThrough(matches: EncodedMatches, index: number): EncodedMatches {
  let files = 0;
  let count = 0;
  while (files * 2 < matches.files.length && matches.files[files * 2] <= index) count += matches.files[files++ * 2 + 1];
  return { ...matches, files: matches.files.slice(0, files * 2), ends: matches.ends.slice(0, count * ENDS) };
}

/** The first `count` results as objects (what the bytes say; used where no answer is written, such as tests). */
export function decodeMatches(matches: EncodedMatches, count: number): SearchResultItem[] {
  return JSON.parse(`[${matches.chars.slice(0, matchBytes(matches, count).chars)}]`) as SearchResultItem[];
}
