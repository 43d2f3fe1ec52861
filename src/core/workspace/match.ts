// Line matching: the one function that decides which lines a query matches, on disk scans and indexed searches.

/** [1-based line number, the line (clipped around the match when long), the matched text]. */
export type LineMatch = [number, string, string];

/**
 * Finds the first match on each line that is not empty (an empty one is skipped and the line searched on, so
 * `\d*` finds `42` in `Total: 42`). Self-contained on purpose: its source text also runs inside the text
 * worker, so it must not refer to anything outside itself.
 *
 * `wholeText`: look for candidates in the whole text first and check only the lines they fall on. Gives the same
 * lines as the line-by-line loop whenever every per-line match is also a match of the pattern in the whole text,
 * which holds for patterns without negative lookarounds (the caller decides): the candidate scan then never skips
 * a line that matches, and each candidate line is checked exactly as the loop would.
 *
 * `required`: texts one of which every line the pattern matches holds, compared as the flags compare (see
 * requiredTexts); only the lines holding one are checked, each exactly as the loop would, which gives the same lines
 * for any pattern.
 */
export function matchLines(text: string, source: string, flags: string, limit: number, wholeText = false, required?: readonly string[]): LineMatch[] {
  // Global, so that the search of a line can go on after an empty match.
  const re = new RegExp(source, `${flags}g`);
  const unicode = flags.includes('u');
  const out: LineMatch[] = [];
  const check = (lineNo: number, raw: string) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    re.lastIndex = 0;
    let m = re.exec(line);
    // An empty match says nothing useful about a line, but need not be its only one (`\d*` on `Total: 42`): the
    // search goes on one character further, as ripgrep's does, until a match that is not empty or the line's end.
    while (m && m[0] === '') {
      let next = m.index + 1;
      if (unicode && next < line.length && (line.charCodeAt(m.index) & 0xfc00) === 0xd800 && (line.charCodeAt(next) & 0xfc00) === 0xdc00) next++;
      if (next > line.length) return;
      re.lastIndex = next;
      m = re.exec(line);
    }
    if (!m) return;
    let content = line;
    if (content.length > 400) {
      // Cut between whole characters: never between the two halves of a surrogate pair (an emoji).
      let start = Math.max(0, m.index - 150);
      if (start > 0 && (line.charCodeAt(start) & 0xfc00) === 0xdc00) start--;
      let end = Math.min(line.length, start + 400);
      if (end < line.length && (line.charCodeAt(end - 1) & 0xfc00) === 0xd800) end--;
      content = (start > 0 ? '…' : '') + line.slice(start, end) + (end < line.length ? '…' : '');
    }
    // A match is clipped too (a pattern such as `.*` can match a whole line of megabytes).
    let matched = m[0];
    if (matched.length > 400) matched = `${matched.slice(0, /[\uD800-\uDBFF]/.test(matched[399]) ? 399 : 400)}…`;
    out.push([lineNo, content, matched]);
  };
  if (required && required.length > 0) {
    // A line holding none of these texts cannot match: only the lines holding one are checked, in order. They are
    // found as the query's flags compare them (case-insensitively with `i`).
    const starts: number[] = [];
    const lineOf = (at: number) => (at === 0 ? 0 : text.lastIndexOf('\n', at - 1) + 1);
    if (flags.includes('i')) {
      const any = new RegExp(required.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), `${flags}g`);
      for (let m = any.exec(text); m; m = any.exec(text)) {
        starts.push(lineOf(m.index));
        const end = text.indexOf('\n', m.index);
        if (end < 0) break;
        any.lastIndex = end;
      }
    } else {
      for (const needle of required) {
        for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
          starts.push(lineOf(at));
          at = text.indexOf('\n', at);
          if (at < 0) break;
        }
      }
      if (required.length > 1) starts.sort((a, b) => a - b);
    }
    let lineNo = 1;
    let counted = 0; // newlines before this offset are counted in lineNo
    for (let k = 0; k < starts.length && out.length < limit; k++) {
      const start = starts[k];
      if (k > 0 && start === starts[k - 1]) continue;
      for (let nl = text.indexOf('\n', counted); nl >= 0 && nl < start; nl = text.indexOf('\n', counted)) {
        lineNo++;
        counted = nl + 1;
      }
      let end = text.indexOf('\n', start);
      if (end < 0) end = text.length;
      check(lineNo, text.slice(start, end));
    }
    return out;
  }
  if (!wholeText) {
    const lines = text.split('\n');
    for (let i = 0; i < lines.length && out.length < limit; i++) check(i + 1, lines[i]);
    return out;
  }
  const scan = new RegExp(source, `${flags}gm`);
  let lineNo = 1;
  let counted = 0; // newlines before this offset are counted in lineNo
  while (out.length < limit) {
    const c = scan.exec(text);
    if (!c) break;
    const start = c.index === 0 ? 0 : text.lastIndexOf('\n', c.index - 1) + 1;
    let end = text.indexOf('\n', c.index);
    if (end < 0) end = text.length;
    for (let nl = text.indexOf('\n', counted); nl >= 0 && nl < start; nl = text.indexOf('\n', counted)) {
      lineNo++;
      counted = nl + 1;
    }
    check(lineNo, text.slice(start, end));
    if (end >= text.length) break;
    scan.lastIndex = end + 1;
  }
  return out;
}
