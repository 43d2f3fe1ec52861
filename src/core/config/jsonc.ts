// config.json is JSON with comments (like VS Code's own settings files): parsing, and edits that keep the rest.
import { applyEdits, modify, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser/lib/esm/main.js';

/** `recovered`: what a tolerant reading of a file with errors still finds (a missing comma loses nothing). */
export type JsoncParse = { ok: true; value: unknown } | { ok: false; error: string; recovered?: unknown };

const PARSE_OPTIONS = { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false };

function position(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return `line ${line}, column ${column}`;
}

/** Parses JSON that may hold comments and trailing commas; anything else is an error that says where. */
export function parseJsonc(text: string): JsoncParse {
  const errors: ParseError[] = [];
  // Values nested thousands deep overflow the stack of the recursive parse or conversion: such a file is not settings.
  let tree: Node | undefined;
  try {
    tree = parseTree(text, errors, PARSE_OPTIONS);
  } catch (err) {
    if (err instanceof RangeError) return { ok: false, error: 'values nested too deeply to be read' };
    throw err;
  }
  const convert = (): { value: unknown } | undefined => {
    try {
      return { value: valueOf(tree as Node) };
    } catch (err) {
      if (err instanceof RangeError) return undefined;
      throw err;
    }
  };
  if (errors.length === 0 && tree) {
    const converted = convert();
    if (converted) return { ok: true, value: converted.value };
    return { ok: false, error: 'values nested too deeply to be read' };
  }
  const first = errors[0];
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  return { ok: false, error: `${printParseErrorCode(first.error)} at ${position(text, first.offset)}${more}`, recovered: tree && convert()?.value };
}

/**
 * True for a text that holds no value: nothing, or only white space and comments (VS Code reads a settings file
 * like that as empty). An unterminated comment is not this: it is a syntax error.
 */
export function holdsNoValue(text: string): boolean {
  const errors: ParseError[] = [];
  try {
    return parseTree(text, errors, { ...PARSE_OPTIONS, allowEmptyContent: true }) === undefined && errors.length === 0;
  } catch {
    return false;
  }
}

/**
 * The value of a parse tree node, with every key an own property like JSON.parse makes it: a plain assignment
 * of a "__proto__" key would replace the object's prototype instead.
 */
function valueOf(node: Node): unknown {
  if (node.type === 'array') return (node.children ?? []).map(valueOf);
  if (node.type !== 'object') return node.value as unknown;
  const out: Record<string, unknown> = {};
  for (const property of node.children ?? []) {
    const [key, value] = property.children ?? [];
    if (!key || !value) continue;
    Object.defineProperty(out, String(key.value), { value: valueOf(value), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

export type JsonPath = (string | number)[];

/**
 * Sets each value at its path in the text, leaving comments, formatting, order and every other key as they
 * are. A path whose parent is not an object (e.g. `"editor": 5`) sets the nearest ancestor that can be set;
 * `valueAt` gives the value for any prefix of a path.
 */
export function setInJsonc(text: string, paths: readonly JsonPath[], valueAt: (path: JsonPath) => unknown, options: { first?: boolean } = {}): string {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const indent = /\n([ \t]+)"/.exec(text)?.[1] ?? '  ';
  const formattingOptions = { insertSpaces: !indent.startsWith('\t'), tabSize: indent.startsWith('\t') ? 1 : indent.length, eol };
  // A new key goes last in its object, or first with `first`.
  const getInsertionIndex = options.first ? () => 0 : undefined;
  let out = text;
  for (const path of paths) {
    for (let length = path.length; length > 0; length--) {
      const prefix = path.slice(0, length);
      try {
        out = applyEdits(out, modify(out, prefix, valueAt(prefix), { formattingOptions, getInsertionIndex }));
        break;
      } catch {
        // the parent of `prefix` is not an object: try one level up
      }
    }
  }
  return out;
}

/** Keys that occur more than once in one object of a JSON-with-comments text, as dotted paths. */
export function duplicateKeys(text: string): string[] {
  const tree = parseTree(text, [], PARSE_OPTIONS);
  const found = new Set<string>();
  const walk = (node: Node | undefined, prefix: string[]) => {
    if (!node) return;
    if (node.type === 'array') for (const child of node.children ?? []) walk(child, prefix);
    if (node.type !== 'object') return;
    const seen = new Set<string>();
    for (const property of node.children ?? []) {
      const [key, value] = property.children ?? [];
      if (!key) continue;
      const name = String(key.value);
      if (seen.has(name)) found.add([...prefix, name].join('.'));
      seen.add(name);
      walk(value, [...prefix, name]);
    }
  };
  walk(tree, []);
  return [...found];
}
