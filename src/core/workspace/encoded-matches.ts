// A search's matches as the bytes of its answer. The text worker that finds them writes each result's JSON there,
// escaped as the answer's text block holds it, in UTF-8, so the protocol thread neither builds the result objects,
// nor serialises them, nor encodes them: it joins the workers' bytes and writes them out. On the benchmark's regular
// expression (8 386 results, an 8.6 MB answer when it still came twice) that work took the protocol thread about
// 90 ms. The JSON itself is never made as a string on the hot path: only where results are read as objects
// (decodeMatches).
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
 * Results in order, each as `JSON.stringify(result)` writes it followed by a comma, escaped as characters of a JSON
 * string (every `"` and `\` preceded by a `\`: JSON.stringify's output holds no other character a string must
 * escape; characters beyond Latin-1 may be `\uXXXX` escapes, see matchEncoder), in UTF-8. A prefix of the results is
 * a prefix of the bytes.
 */
export interface EncodedMatches {
  /** For each file with results, in order: its index in the list searched, and its number of results. */
  files: Int32Array;
  /** For each result, in order: where it ends (after its comma) in `text`. */
  ends: Int32Array;
  text: Uint8Array;
}

/** Encodes results one file at a time, as they are found (see matchEncoder). */
export interface MatchEncoder {
  /** Appends the results `lines` of the file at `index` of the paths (files are added in order, each once). */
  add(index: number, lines: readonly LineMatch[]): void;
  /** The results added so far, as EncodedMatches; the encoder is not used after. */
  done(): EncodedMatches;
}

/**
 * Encodes results on `paths` as they are found, file by file (see EncodedMatches). Self-contained on purpose: its
 * source text also runs inside the text worker, so it must not refer to anything outside itself. The bytes lie in
 * buffers of their own, never Node's shared pool, so that they can be moved to another thread.
 *
 * Each result is written as one string, its JSON escaped, converted to UTF-8 straight into the buffer (one call into
 * native code a result, which also gives its end). A string with no quote, backslash, control character or
 * character beyond Latin-1, which is nearly every path and line of a note, is written as it is between escaped
 * quotes, as JSON.stringify would write it, escaped; any other goes through JSON.stringify twice. On the
 * benchmark's regular expression (8 386 results, 4.4 MB) this took 41-48 ms a search where serialising all the
 * results at once, converting that to UTF-8 and escaping it byte by byte took 65-98 ms (and 50-80 ms on a worker's
 * first search where that took 94-174 ms), with the results' JSON still made as a string too.
 *
 * A file's results are encoded as soon as it is searched, so that its lines and their text die young: kept until
 * the end of a search, the benchmark's 8 386 matched lines (and the 2.9 MB of text they are cut from) survived
 * every young-generation collection of a worker's first search, and were copied at each one.
 *
 * Characters beyond Latin-1 (above U+00FF: typographic quotes and dashes, the ellipsis, CJK, emoji) are written as
 * `\uXXXX` escapes while they are rare, at most one in 32 of the characters written so far. A JavaScript client
 * (Node, Electron: the SDK's, VS Code's) decodes a reply whose characters all lie within Latin-1 into a one-byte
 * string; a single character beyond it makes the whole reply a string of two bytes a character, slower to decode
 * and to parse. The benchmark's regular expression answer (4.4 MB, with 189 ellipses among 4 553 accented
 * letters) took a Node client 51-55 ms instead of 67-69 ms to decode and parse. Accented Latin letters stay as
 * they are (two bytes in UTF-8, six as an escape), and where characters beyond Latin-1 are common (Cyrillic, CJK,
 * Greek) escapes would make a reply up to three times larger, so from the first string that would take their
 * share over one in 32 (counting 4 096 characters more than were written, so that an answer's first strings do
 * not decide alone) they are written as they are. (The SDK client receiving a 4.5 MB answer with one typographic
 * quote in 32 characters, repeatedly: 95-97 ms escaped against 124-142 ms as it is; one in eight: no clear gain.)
 *
 * `sizeHint`: about how many bytes the results will take, allocated at once instead of grown by doubling (each
 * doubling copies what was written into pages touched for the first time). Given only where it is known well:
 * a hint kept from a worker's last answer made warm searches slower (buffers grown by doubling reuse freed memory).
 */
export function matchEncoder(paths: readonly string[], sizeHint = 0): MatchEncoder {
  /** Finds what JSON.stringify would escape (a surrogate only when alone, but any is sent the slow way), and any other character beyond Latin-1. */
  // eslint-disable-next-line no-control-regex -- control characters are what JSON escapes
  const special = /["\\\u0000-\u001f\u0100-\uffff]/;
  const beyondLatin1 = /[\u0100-\uffff]/g;
  /** Characters of the strings written so far, how many of them lay beyond Latin-1, and whether those are escaped. */
  let written = 0;
  let wide = 0;
  let escaping = true;
  /** Characters counted as written before any: the first strings of an answer are too few to tell a share by. */
  const GRACE = 4096;
  /** `value` as the characters of a JSON string within a JSON string (see EncodedMatches). */
  const escapedString = (value: string): string => {
    written += value.length;
    if (!special.test(value)) return `\\"${value}\\"`;
    const json = JSON.stringify(JSON.stringify(value)).slice(1, -1);
    if (!escaping) return json;
    let found = 0;
    const escaped = json.replace(beyondLatin1, (ch) => {
      found++;
      return `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
    });
    if ((wide + found) * 32 > written + GRACE) {
      escaping = false;
      return json;
    }
    wide += found;
    return escaped;
  };
  let files = new Int32Array(64);
  let fileCount = 0;
  let ends = new Int32Array(256);
  let count = 0;
  // Grown by doubling when a result might not fit (UTF-8 takes at most 3 bytes a UTF-16 unit). Pages of it never
  // written take no memory.
  let text = Buffer.allocUnsafeSlow(Math.min(Math.max(sizeHint, 0), 64 * 1024 * 1024));
  let at = 0;
  return {
    add(index, lines) {
      if (lines.length === 0) return;
      if (fileCount * 2 === files.length) {
        const grown = new Int32Array(files.length * 2);
        grown.set(files);
        files = grown;
      }
      files[fileCount * 2] = index;
      files[fileCount * 2 + 1] = lines.length;
      fileCount++;
      if (count + lines.length > ends.length) {
        const grown = new Int32Array(Math.max(ends.length * 2, count + lines.length));
        grown.set(ends);
        ends = grown;
      }
      const file = paths[index];
      const fileText = escapedString(file);
      for (const [line, content, match] of lines) {
        const contentText = escapedString(content);
        const matchText = escapedString(match);
        const escaped = `{\\"file\\":${fileText},\\"line\\":${line},\\"content\\":${contentText},\\"match\\":${matchText}},`;
        if (text.length - at < escaped.length * 3) {
          const grown = Buffer.allocUnsafeSlow(Math.max(text.length * 2, at + escaped.length * 3, 65536));
          text.copy(grown, 0, 0, at);
          text = grown;
        }
        at += text.write(escaped, at);
        ends[count++] = at;
      }
    },
    done() {
      return { files: files.slice(0, fileCount * 2), ends: ends.slice(0, count), text: new Uint8Array(text.buffer, text.byteOffset, at) };
    },
  };
}

/**
 * `matches` to post, and the buffers to move with them (not copied). Self-contained: also runs inside the text
 * worker. The buffers are the matches' own (see matchEncoder).
 */
export function postedMatches(matches: EncodedMatches): { posted: EncodedMatches; move: ArrayBuffer[] } {
  return { posted: matches, move: [matches.files.buffer, matches.ends.buffer, matches.text.buffer] as ArrayBuffer[] };
}

export function matchCount(matches: EncodedMatches): number {
  return matches.ends.length;
}

/** The bytes the first `count` results take in `text`, the commas between them included. */
export function matchBytes(matches: EncodedMatches, count: number): number {
  return count <= 0 ? 0 : matches.ends[count - 1] - 1;
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
  const ends = new Int32Array(count);
  const text = new Uint8Array(textBytes);
  let at = 0;
  let r = 0;
  entries.forEach(([index, p, first, n], f) => {
    files[f * 2] = index;
    files[f * 2 + 1] = n;
    const from = parts[p].matches;
    const start = first === 0 ? 0 : from.ends[first - 1];
    for (let i = first; i < first + n; i++) ends[r++] = at + from.ends[i] - start;
    const end = from.ends[first + n - 1];
    text.set(from.text.subarray(start, end), at);
    at += end - start;
  });
  return { files, ends, text };
}

/** The results of `matches` in files up to and including the file at `index` of the list searched: a prefix. */
export function matchesThrough(matches: EncodedMatches, index: number): EncodedMatches {
  let files = 0;
  let count = 0;
  while (files * 2 < matches.files.length && matches.files[files * 2] <= index) count += matches.files[files++ * 2 + 1];
  return { ...matches, files: matches.files.slice(0, files * 2), ends: matches.ends.slice(0, count) };
}

/** The first `count` results as objects (what the bytes say; used where no answer is written, such as tests). */
export function decodeMatches(matches: EncodedMatches, count: number): SearchResultItem[] {
  // The bytes are the characters of a JSON string that holds the results' JSON: read as one, then parsed.
  const escaped = Buffer.from(matches.text.buffer, matches.text.byteOffset, matchBytes(matches, count)).toString('utf8');
  return JSON.parse(JSON.parse(`"[${escaped}]"`) as string) as SearchResultItem[];
}
