// list_files pages: the sorted paths from a cursor on, as many as the caller asks and as fit in one reply.

import { REPLY_ROOM } from '../limits';
import { encodeJoinedPaths } from '../../src/core/workspace/prelist';
import type { EncodedFiles } from '../../src/core/workspace/workspace-index';
import type { EncodedAnswer } from '../structured-json';

export interface ListPage {
  files: string[];
  /** Paths in this page. */
  count: number;
  /** Paths in the whole listing. */
  total: number;
  /** True when paths sorted after this page's last one exist. */
  truncated: boolean;
  /** Set when truncated: the cursor for the next page (this page's last path). */
  nextCursor?: string;
}

/** The index of the first path of `sorted` (sorted by UTF-16 code units) that sorts after `cursor`. */
export function firstAfter(sorted: readonly string[], cursor: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] <= cursor) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Occurrences of the character `c` in `text`. */
function countOf(text: string, c: string): number {
  let n = 0;
  for (let i = text.indexOf(c); i !== -1; i = text.indexOf(c, i + 1)) n++;
  return n;
}

/**
 * The bytes a JSON text takes in a reply as its text block's string, where each `"` and `\` gains a backslash (JSON
 * text holds no other character a string escapes).
 */
export function replyBytes(json: string): number {
  return Buffer.byteLength(json) + countOf(json, '"') + countOf(json, '\\');
}

function pageJson(page: ListPage): string {
  // The order of ListPage's fields, as JSON.stringify of the page would give them.
  const cursor = page.nextCursor === undefined ? '' : `,"nextCursor":${JSON.stringify(page.nextCursor)}`;
  return `{"files":${JSON.stringify(page.files)},"count":${page.count},"total":${page.total},"truncated":${page.truncated}${cursor}}`;
}

/**
 * The page of `sorted` after `cursor` (from the start without one), of at most `limit` paths, cut further to the
 * last path that lets the reply fit in `maxBytes` (the request id's JSON aside). Returns the page and its JSON.
 * Only a listing that does not fit is measured path by path; the cut is then exact.
 */
export function listPage(sorted: readonly string[], options: { cursor?: string; limit?: number; maxBytes: number }): { page: ListPage; json: string } {
  const budget = options.maxBytes - REPLY_ROOM;
  const start = options.cursor === undefined ? 0 : firstAfter(sorted, options.cursor);
  const end = Math.min(sorted.length, options.limit === undefined ? sorted.length : start + options.limit);
  const make = (stop: number): { page: ListPage; json: string } => {
    const files = sorted.slice(start, stop);
    const page: ListPage = { files, count: files.length, total: sorted.length, truncated: stop < sorted.length };
    if (page.truncated) page.nextCursor = sorted[stop - 1];
    return { page, json: pageJson(page) };
  };
  if (start === end) return make(start); // nothing after the cursor
  const whole = make(end);
  if (replyBytes(whole.json) <= budget) return whole;
  // Too big: the largest page that fits, from each path's own bytes. What a page takes besides its paths is the
  // JSON around them, with its last path again as the cursor, so a page ending in a long path may not fit where a
  // longer one ending in a short path does: pages are tried until their paths alone are too many. The first path
  // is always in it, so that each page moves on (a reply too large even so is refused by the transport, which no
  // path of a real folder comes near).
  let used = 0;
  let stop = start + 1;
  for (let i = start; i < end; i++) {
    used += replyBytes(JSON.stringify(sorted[i])) + (i > start ? 1 : 0); // and the comma before it
    if (used > budget) break;
    const around = replyBytes(pageJson({ files: [], count: i - start + 1, total: sorted.length, truncated: true, nextCursor: sorted[i] }));
    if (used + around <= budget) stop = i + 1;
  }
  return make(stop);
}

/**
 * listPage's answer as the reply's text block holds it (see EncodedAnswer): the page's JSON as the characters of a
 * JSON string, in UTF-8, the bytes the transport would write for listPage's `json` (or the same string with
 * characters beyond Latin-1 as `\\uXXXX` escapes, see encodeJoinedPaths). A page that ends where it may
 * (the listing's end or `limit`) and whose paths hold no character JSON escapes, as most do, is written from one
 * join of its paths (encodeJoinedPaths), without making its JSON and escaping that again; other pages come from
 * listPage. `whole`: for a page that is the whole listing, its paths so written when known already (the text
 * workers write them for the early listing), else filled with them once made, for the next answer.
 */
export function listAnswer(sorted: readonly string[], options: { cursor?: string; limit?: number; maxBytes: number }, whole?: Pick<EncodedFiles, 'body'>): EncodedAnswer {
  const start = options.cursor === undefined ? 0 : firstAfter(sorted, options.cursor);
  const end = Math.min(sorted.length, options.limit === undefined ? sorted.length : start + options.limit);
  if (start < end) {
    const all = start === 0 && end === sorted.length;
    let body = all ? whole?.body : undefined;
    if (!body) {
      const bytes = encodeJoinedPaths((all ? sorted : sorted.slice(start, end)).join('\0'));
      if (bytes) body = [bytes];
      if (body && all && whole) whole.body = body;
    }
    if (body) {
      // As pageJson gives it for this page, escaped once more.
      const truncated = end < sorted.length;
      // The cursor (the page's last path, which the body holds) with its characters beyond Latin-1 escaped, as the
      // body's are where they are rare: where they are not, the reply holds others as they are anyway.
      const escapedLast = () => sorted[end - 1].replace(/[\u0100-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
      const cursor = truncated ? `,\\"nextCursor\\":\\"${escapedLast()}\\"` : '';
      const head = Buffer.from('{\\"files\\":[\\"');
      const tail = Buffer.from(`\\"],\\"count\\":${end - start},\\"total\\":${sorted.length},\\"truncated\\":${truncated}${cursor}}`);
      let bytes = head.length + tail.length;
      for (const piece of body) bytes += piece.length;
      if (bytes <= options.maxBytes - REPLY_ROOM) return { text: [head, ...body, tail] };
    }
  }
  // JSON.stringify of the JSON is the string as the reply holds it, between its quotes.
  return { text: [Buffer.from(JSON.stringify(listPage(sorted, options).json).slice(1, -1), 'utf8')] };
}
