// esbuild plugin for the server bundle: each Node built-in module that the bundle's ES modules import gets one
// module object, shared by all of them.
//
// esbuild compiles `import fs from 'node:fs'` (and `import * as fs`) in every module to its own
// `__toESM(require('node:fs'))`, which copies each of the module's exports onto a new object: the server's modules
// made 58 such copies at every start, 2 121 properties, about 4 ms. Resolved here to one small module that
// re-exports the built-in, each importer reads the same object (two copies per built-in in all). Imports by
// `require()` (CommonJS packages) are left as they are: they take the built-in itself.

const NAMESPACE = 'shared-builtin';

/** @returns {import('esbuild').Plugin} */
export function sharedBuiltins() {
  return {
    name: 'shared-builtins',
    setup(build) {
      build.onResolve({ filter: /^node:/ }, (args) => {
        if (args.namespace === NAMESPACE || args.kind !== 'import-statement') return undefined;
        return { path: args.path, namespace: NAMESPACE };
      });
      build.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => {
        const id = JSON.stringify(args.path);
        return { contents: `export * from ${id};\nexport { default } from ${id};\n`, loader: 'js' };
      });
    },
  };
}
