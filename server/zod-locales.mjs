import path from 'node:path';

// esbuild plugin for the server and extension bundles: zod's `locales` namespace holds English only.
//
// zod exports every language it has (`z.locales.de()`, `z.locales.ja()`, ...) from one namespace, which esbuild
// cannot leave out: `import * as z` keeps all of it. The server and the extension only ever speak English, which zod sets up by
// itself (classic/schemas.js imports locales/en.js directly), and nothing calls `z.locales`. The 62 other languages
// were a fifth of server-core.js (260 KB) and of extension.js, read and compiled at every start.

const NAMESPACE = 'zod-locales';
const ZOD_V4 = /[\\/]zod[\\/]v4[\\/](classic|core)[\\/][^\\/]+\.js$/;

/** @returns {import('esbuild').Plugin} */
export function zodEnglishOnly() {
  return {
    name: 'zod-english-only',
    setup(build) {
      build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => {
        if (!ZOD_V4.test(args.importer)) return undefined;
        return { path: path.join(path.dirname(args.importer), '..', 'locales', 'index.js'), namespace: NAMESPACE };
      });
      build.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => ({
        contents: "export { default as en } from './en.js';\n",
        loader: 'js',
        resolveDir: path.dirname(args.path),
      }));
    },
  };
}
