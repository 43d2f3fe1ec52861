// config.json is JSON with comments (like VS Code's own settings files): parsing, and edits that keep the rest.
import { applyEdits, createScanner, modify, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser/lib/esm/main.js';

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

// jsonc-parser's SyntaxKind numbers (a `const enum` in its types, which isolated modules cannot read).
const TOKEN = { openBrace: 1, closeBrace: 2, openBracket: 3, closeBracket: 4, comma: 5, colon: 6, null: 7, true: 8, false: 9, string: 10, number: 11, eof: 17 } as const;

/**
 * What a token-by-token reading of a text with syntax errors finds, where the parser's own recovery stops at the
 * first closing of the root (a stray `}` ends the file for it, and with it every key after): each `"key": value`
 * is set in the object it is written in, a closing bracket with nothing open to close is passed over (what follows
 * goes on in the root object), and tokens that fit nowhere are skipped. Not the file's value: only a reading of what
 * it says, for deciding what it turns off. Undefined when the text holds no object at all.
 */
export function readLeniently(text: string): Record<string, unknown> | undefined {
  type Frame = { value: Record<string, unknown> | unknown[]; key?: string };
  const scanner = createScanner(text, true);
  const stack: Frame[] = [];
  let root: Record<string, unknown> | undefined;
  const set = (frame: Frame | undefined, value: unknown) => {
    if (!frame) return;
    if (Array.isArray(frame.value)) frame.value.push(value);
    else if (frame.key !== undefined) Object.defineProperty(frame.value, frame.key, { value, enumerable: true, writable: true, configurable: true });
    frame.key = undefined;
  };
  for (let token = scanner.scan() as number; token !== TOKEN.eof; token = scanner.scan() as number) {
    const top = stack[stack.length - 1];
    switch (token) {
      case TOKEN.openBrace:
      case TOKEN.openBracket: {
        const value = token === TOKEN.openBrace ? {} : [];
        if (!root) {
          if (Array.isArray(value)) continue;
          root = value as Record<string, unknown>;
        } else set(top, value);
        stack.push({ value });
        break;
      }
      case TOKEN.closeBrace:
      case TOKEN.closeBracket:
        if (stack.length > 1) stack.pop();
        break;
      case TOKEN.comma:
        if (top) top.key = undefined;
        break;
      case TOKEN.string: {
        const text = scanner.getTokenValue();
        if (top && !Array.isArray(top.value) && top.key === undefined) {
          // A key when a colon follows; a value with no key is passed over.
          const at = scanner.getPosition();
          if ((scanner.scan() as number) === TOKEN.colon) top.key = text;
          else scanner.setPosition(at);
        } else set(top, text);
        break;
      }
      case TOKEN.number:
        set(top, Number(scanner.getTokenValue()));
        break;
      case TOKEN.true:
      case TOKEN.false:
      case TOKEN.null:
        set(top, token === TOKEN.null ? null : token === TOKEN.true);
        break;
      default:
        break;
    }
  }
  return root;
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
