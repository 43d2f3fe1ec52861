import fs from 'node:fs';
import * as acorn from 'acorn';

// esbuild plugin for the server bundle: the MCP SDK's zod schemas (its types.js, 160 of them and the schemas they
// are made of) are built on first use instead of as the module loads. Building them all took about 20 ms of every
// start, the largest part of what the bundle's modules do as they load; the handshake and tools/list use fewer than
// half of them (notifications, sampling, elicitation, tasks and the client's results wait for a request that needs
// them, most never).
//
// Each top-level `const NameSchema = <call>` becomes a stand-in made by lazySchema: the schema's own code runs the
// first time the stand-in is read from (a property, `in`, its keys or prototype), and every read from then on goes to
// the schema built. The SDK, zod and the server use the stand-ins as they would the schemas: a schema made from
// another (`A.extend(...)`, `z.union([A, B])`) reads it, and zod's `instanceof` looks at `_zod`, which the stand-in
// answers. What is not a `const ...Schema = <call>` is left as it is.

/** The SDK's module of protocol schemas, as esbuild resolves it for the server (the ES module build). */
export const SDK_TYPES = /[\\/]@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]esm[\\/]types\.js$/;

/** Where the stand-ins can be counted and all built (the tests look there). */
export const LAZY_SCHEMAS_KEY = 'notesapp.lazySdkSchemas';

const HELPER = `
const __lazySchemas = [];
function __lazySchema(make) {
  let real;
  const build = () => (real ??= make());
  __lazySchemas.push({ build, built: () => real !== undefined });
  // The target only stands in: every trap answers from the schema built. A property the schema has is reported
  // configurable (a proxy may not report one the target lacks as fixed).
  return new Proxy({}, {
    get: (_target, key) => Reflect.get(build(), key),
    set: (_target, key, value) => Reflect.set(build(), key, value),
    has: (_target, key) => Reflect.has(build(), key),
    ownKeys: () => Reflect.ownKeys(build()),
    getOwnPropertyDescriptor: (_target, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(build(), key);
      if (descriptor) descriptor.configurable = true;
      return descriptor;
    },
    defineProperty: (_target, key, descriptor) => Reflect.defineProperty(build(), key, descriptor),
    deleteProperty: (_target, key) => Reflect.deleteProperty(build(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(build()),
  });
}
globalThis[Symbol.for(${JSON.stringify(LAZY_SCHEMAS_KEY)})] = {
  total: () => __lazySchemas.length,
  built: () => __lazySchemas.filter((s) => s.built()).length,
  buildAll: () => __lazySchemas.forEach((s) => s.build()),
};
`;

/** The module's source with each `const ...Schema = <call>` at its top level made lazy, and how many were. */
export function makeSchemasLazy(source) {
  const ast = acorn.parse(source, { ecmaVersion: 'latest', sourceType: 'module' });
  const edits = [];
  for (const statement of ast.body) {
    const declaration = statement.type === 'ExportNamedDeclaration' ? statement.declaration : statement;
    if (declaration?.type !== 'VariableDeclaration' || declaration.kind !== 'const') continue;
    for (const { id, init } of declaration.declarations) {
      if (id.type !== 'Identifier' || !id.name.endsWith('Schema') || init?.type !== 'CallExpression') continue;
      edits.push([init.start, '__lazySchema(() => ('], [init.end, '))']);
    }
  }
  let out = '';
  let last = 0;
  for (const [at, text] of edits.sort((a, b) => a[0] - b[0])) {
    out += source.slice(last, at) + text;
    last = at;
  }
  // Imports are hoisted, so the helper may come first; it must, for the stand-ins made as the module loads.
  return { source: HELPER + out + source.slice(last), count: edits.length / 2 };
}

/** @returns {import('esbuild').Plugin} */
export function lazySdkSchemas(filter = SDK_TYPES) {
  return {
    name: 'lazy-sdk-schemas',
    setup(build) {
      build.onLoad({ filter }, (args) => {
        const original = fs.readFileSync(args.path, 'utf8');
        const { source, count } = makeSchemasLazy(original);
        // A layout this plugin does not know (another SDK version) is bundled as it is, and said so.
        if (count === 0) return { contents: original, loader: 'js', warnings: [{ text: `no schema made lazy in ${args.path}` }] };
        return { contents: source, loader: 'js' };
      });
    },
  };
}
