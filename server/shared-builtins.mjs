// esbuild plugin for the bundles in dist/: the Node built-ins that many of their ES modules import whole get one
// module object each, shared by all of them.
//
// esbuild compiles `import fs from 'node:fs'` (and `import * as fs`) in every module to its own
// `__toESM(require('node:fs'))`, which copies each of the module's exports onto a new object: the server's modules
// made 58 such copies at every start, 2 121 properties, about 4 ms, nearly all of node:path (23 modules), node:fs
// (13), node:fs/promises (5) and node:os (4). Resolved here to one small module that re-exports the built-in, each
// importer reads the same object (two copies per built-in in all). Only these: a built-in imported by name only
// (`import { parseArgs } from 'node:util'`) is not copied at all, and copying some would run their lazy parts
// (Node 24's node:util loads node:worker_threads when its exports are read, which a start-up snapshot refuses).
// Imports by `require()` (CommonJS packages) are left as they are: they take the built-in itself.

/** The built-ins shared: those many modules import whole. */
export const SHARED_BUILTINS = ['node:path', 'node:fs', 'node:fs/promises', 'node:os'];

const NAMESPACE = 'shared-builtin';

/** @returns {import('esbuild').Plugin} */
export function sharedBuiltins(shared = SHARED_BUILTINS) {
  return {
    name: 'shared-builtins',
    setup(build) {
      build.onResolve({ filter: /^node:/ }, (args) => {
        if (args.namespace === NAMESPACE || args.kind !== 'import-statement' || !shared.includes(args.path)) return undefined;
        return { path: args.path, namespace: NAMESPACE };
      });
      build.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => {
        const id = JSON.stringify(args.path);
        return { contents: `export * from ${id};\nexport { default } from ${id};\n`, loader: 'js' };
      });
    },
  };
}
