// The failing tests of a mocha run (spec reporter), one line each, for the end of `npm test`'s output: a CI log that
// keeps only its last lines then still says which test failed and why.

/** Longest line given for one failing test; the full report is further up the output. */
const MAX_LINE = 320;

/**
 * Reads the "N failing" section of spec-reporter output (colours already removed) and gives one line per failure:
 * `N) suite › test — first line(s) of the error`.
 */
export function failureLines(plain) {
  const start = plain.search(/^\s*\d+ failing\s*$/m);
  if (start < 0) return [];
  const lines = plain.slice(start).split(/\r?\n/).slice(1);
  const blocks = [];
  for (const line of lines) {
    const head = /^ {2}(\d+)\) (.*)$/.exec(line);
    if (head) blocks.push({ n: head[1], lines: [head[2]] });
    else if (blocks.length) blocks.at(-1).lines.push(line);
  }
  return blocks.map(({ n, lines: block }) => {
    // The title runs to the first line that ends with ':' (suites nest one line each, a title may hold a line break).
    let end = block.findIndex((l) => l.trimEnd().endsWith(':'));
    if (end < 0) end = 0;
    const title = block
      .slice(0, end + 1)
      .map((l) => l.trim())
      .filter(Boolean)
      .join(' › ')
      .replace(/:$/, '');
    const error = [];
    for (const l of block.slice(end + 1)) {
      const t = l.trim();
      if (!t) continue;
      if (/^at /.test(t) || t === '+ expected - actual') break;
      error.push(t);
      if (error.length === 2 || !t.endsWith(':')) break;
    }
    const text = `${n}) ${title}${error.length ? ` — ${error.join(' ')}` : ''}`;
    return text.length > MAX_LINE ? `${text.slice(0, MAX_LINE - 1)}…` : text;
  });
}
