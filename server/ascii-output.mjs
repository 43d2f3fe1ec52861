// esbuild plugin: leaves a bundle with no character outside ASCII. esbuild escapes strings, identifiers and cooked
// template literals, but writes regular expression literals as they are in the source (the bundle's
// sentence-ending punctuation, markdown-it's typographer). One such character is enough for V8 to keep the whole
// source as two bytes per character, and for Node to decode the file character by character instead of copying
// ASCII: 1.3 MB of server-core.js took 6-8 ms to read and 8-12 ms to compile from its code cache, against 3 ms and
// 7-10 ms once escaped. The build fails with the place named if anything else outside ASCII is left.
import fs from 'node:fs';
import path from 'node:path';
import { tokenizer, tokTypes } from 'acorn';

/** Any UTF-16 code unit outside ASCII. */
const NON_ASCII = /[\u0080-\uffff]/;

/**
 * A regular expression literal with each character outside ASCII written as \uXXXX, one escape per UTF-16 code
 * unit: the same pattern with the u flag (where a pair of surrogate escapes is one code point) and without it
 * (where the character is those two code units). A backslash before such a character is an identity escape (the
 * character itself), so it is replaced along with the character.
 */
export function escapeRegexLiteral(text) {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      out += next > 0x7f ? unit(next) : text.slice(i, i + 2);
      i++;
    } else out += c > 0x7f ? unit(c) : text[i];
  }
  return out;
}

const unit = (c) => `\\u${c.toString(16).padStart(4, '0')}`;

/**
 * `code` with its regular expression literals and comments made ASCII (escapeRegexLiteral); throws naming `file` and
 * the place of anything else.
 */
export function asciiOnly(code, file = 'bundle') {
  if (!NON_ASCII.test(code)) return code;
  // Regular expression literals, and comments (kept in development builds), where an escape is only text.
  const spans = [];
  const onComment = (_block, _text, start, end) => spans.push([start, end]);
  for (const token of tokenizer(code, { ecmaVersion: 'latest', allowHashBang: true, allowReturnOutsideFunction: true, onComment })) {
    if (token.type === tokTypes.regexp) spans.push([token.start, token.end]);
  }
  spans.sort((a, b) => a[0] - b[0]);
  let out = '';
  let at = 0;
  for (const [start, end] of spans) {
    const text = code.slice(start, end);
    if (!NON_ASCII.test(text)) continue;
    out += code.slice(at, start) + escapeRegexLiteral(text);
    at = end;
  }
  out += code.slice(at);
  const left = NON_ASCII.exec(out);
  if (left) {
    const before = out.slice(0, left.index);
    const line = before.split('\n').length;
    const column = left.index - before.lastIndexOf('\n');
    throw new Error(`${file}:${line}:${column}: "${left[0]}" outside a string, regular expression or comment (a String.raw template?) cannot be escaped: ${JSON.stringify(out.slice(Math.max(0, left.index - 40), left.index + 20))}`);
  }
  return out;
}

/** Rewrites the build's JavaScript outputs in place with asciiOnly once they are written. */
export function asciiOutput() {
  return {
    name: 'ascii-output',
    setup(build) {
      build.initialOptions.metafile = true;
      build.onEnd((result) => {
        if (result.errors.length || !result.metafile) return;
        const cwd = build.initialOptions.absWorkingDir ?? process.cwd();
        const errors = [];
        for (const output of Object.keys(result.metafile.outputs)) {
          if (!output.endsWith('.js')) continue;
          const file = path.resolve(cwd, output);
          const code = fs.readFileSync(file, 'utf8');
          try {
            const ascii = asciiOnly(code, output);
            if (ascii !== code) fs.writeFileSync(file, ascii);
          } catch (err) {
            errors.push({ text: err.message });
          }
        }
        return { errors };
      });
    },
  };
}
