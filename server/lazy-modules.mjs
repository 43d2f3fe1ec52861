import { createRequire } from 'node:module';
import path from 'node:path';

// esbuild plugin for the server bundle: packages the MCP handshake does not need are run on first use, not at start.
// Each import of such a package gets a stand-in whose first call, construction or property read runs the real
// (still bundled) package; until then its module code is never executed, which shortens every server start.

/** Packages made lazy: note parsing (gray-matter and js-yaml, markdown-it), the editor bridge (vscode-jsonrpc),
 * configuration writes (write-file-atomic, which the server never does) and the regular-expression parser that
 * finds the text ripgrep looks for (regexpp), picomatch, which compiles the exclude globs when the workspace is first
 * listed (after the handshake), and Ajv, the SDK's validator of answers to elicitation requests (made on first use,
 * see server.ts). And two built-ins: node:crypto, which the server's modules import for keys, hashes and
 * temporary names they make only once at work (about 2.5 ms of a start; see per-process.ts), and node:fs/promises,
 * which only requests use (about 1 ms; the build leaves it out of the shared built-ins, see esbuild.mjs). */
export const LAZY_PACKAGES = ['gray-matter', 'js-yaml', 'markdown-it', 'vscode-jsonrpc/node', 'write-file-atomic', '@eslint-community/regexpp', 'picomatch', 'ajv', 'ajv-formats', 'node:crypto', 'node:fs/promises'];

/** The package a resolved file belongs to (the last node_modules segment): what a load is counted as. */
const packageOf = (file) => {
  if (file.startsWith('node:')) return file;
  if (!/[\\/]node_modules[\\/]/.test(file) && path.isAbsolute(file)) return path.relative(process.cwd(), file).split(path.sep).join('/');
  const parts = file.split(/[\\/]node_modules[\\/]/).pop().split(/[\\/]/);
  return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
};

/** The project's own modules made lazy: the configuration's zod schema, which a start whose read of the config file
 * was kept does not need (about 9 ms; see server/config-load-cache.ts), and the client of the editor bridge, made
 * when an editor tool is first called (its protocol's zod schemas took about 1 ms of each start). */
export const LAZY_FILES = ['src/core/config/schema.ts', 'server/editor-bridge-client.ts'];

// A process given a list at globalThis[Symbol.for('notesapp.lazyLoads')] (a test's preload) has each first load
// put on it, so that a test can tell which packages the real bundle ran.
const STAND_IN = (name) => `
let real;
const load = () => {
  if (real === undefined) {
    globalThis[Symbol.for('notesapp.lazyLoads')]?.push(${JSON.stringify(packageOf(name))});
    real = require(${JSON.stringify(name)});
  }
  return real;
};
const target = function () {};
const standIn = new Proxy(target, {
  apply: (_t, self, args) => Reflect.apply(load(), self, args),
  construct: (_t, args) => Reflect.construct(load(), args),
  get: (_t, key) => (key === '__esModule' ? undefined : load()[key]),
  has: (_t, key) => key in load(),
  // Module interop copies own keys and the prototype; answering from the empty target keeps that lazy, and the
  // prototype (the stand-in itself) makes every named export resolve to the real one when it is first read.
  ownKeys: (t) => Reflect.ownKeys(t),
  getOwnPropertyDescriptor: (t, key) => Reflect.getOwnPropertyDescriptor(t, key),
  getPrototypeOf: () => standIn,
});
module.exports = standIn;
`;

/** @returns {import('esbuild').Plugin} */
export function lazyModules(packages = LAZY_PACKAGES, files = LAZY_FILES) {
  const filter = new RegExp(`^(${packages.map((p) => p.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')})$`);
  const lazyFiles = new Set(files.map((f) => path.resolve(f)));
  return {
    name: 'lazy-modules',
    setup(build) {
      // A stand-in per copy of the package: the one the importer would load (gray-matter keeps its own js-yaml 3
      // while the server uses js-yaml 4), named by its resolved file, which the stand-in requires.
      build.onResolve({ filter }, (args) => {
        if (args.namespace === 'lazy-module') return undefined;
        const file = createRequire(path.join(args.resolveDir || process.cwd(), 'importer.js')).resolve(args.path);
        return { path: file, namespace: 'lazy-module' };
      });
      // A module of the project's own, imported by a relative path (with or without its extension).
      if (lazyFiles.size > 0) {
        build.onResolve({ filter: /^\.\.?\// }, (args) => {
          if (args.namespace === 'lazy-module' || args.kind === 'require-call') return undefined;
          const base = path.resolve(args.resolveDir, args.path);
          const file = [base, `${base}.ts`, `${base}.mjs`, `${base}.js`].find((f) => lazyFiles.has(f));
          return file ? { path: file, namespace: 'lazy-module' } : undefined;
        });
      }
      build.onLoad({ filter: /.*/, namespace: 'lazy-module' }, (args) => ({ contents: STAND_IN(args.path), loader: 'js', resolveDir: path.dirname(args.path) }));
    },
  };
}
