// Builds the extension, the MCP server and the extension-host test suite. Flags: --production, --watch, and
// --server-out=DIR: only the server's bundles (loader, core, note worker), as the production build makes them, into DIR (the benchmark's copy).
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { asciiOutput } from './server/ascii-output.mjs';
import { LAZY_PACKAGES, lazyModules } from './server/lazy-modules.mjs';
import { lazySdkSchemas } from './server/lazy-sdk-schemas.mjs';
import { SHARED_BUILTINS, sharedBuiltins } from './server/shared-builtins.mjs';
import { zodEnglishOnly } from './server/zod-locales.mjs';

const serverOut = process.argv.find((a) => a.startsWith('--server-out='))?.slice('--server-out='.length);
const production = process.argv.includes('--production') || serverOut !== undefined;
const watch = process.argv.includes('--watch');

/** @type {import('esbuild').BuildOptions} */
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  minify: production,
  sourcemap: production ? false : 'linked',
  sourcesContent: false,
  logLevel: 'warning',
  legalComments: 'none',
};

function listTests(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true })
    .map((f) => path.join(dir, f))
    .filter((f) => f.endsWith('.ts'));
}

const builds = [
  {
    ...common,
    entryPoints: { extension: 'src/extension.ts' },
    outdir: 'dist',
    external: ['vscode'],
    // Every bundle in dist/ is pure ASCII, which Node reads and V8 keeps at one byte a character (see ascii-output.mjs).
    // The built-ins many modules import whole shared, and zod's English only, as in the server (see server-core below).
    plugins: [sharedBuiltins(), zodEnglishOnly(), asciiOutput()],
  },
  {
    // dist/server.js is a small loader that runs dist/server-core.js through a V8 code cache (fast start).
    ...common,
    entryPoints: { server: 'server/bootstrap.ts' },
    outdir: 'dist',
    banner: { js: '#!/usr/bin/env node' },
    plugins: [sharedBuiltins(), asciiOutput()],
  },
  {
    ...common,
    entryPoints: { 'server-core': 'server/main.ts' },
    outdir: 'dist',
    // The bundle is its own CommonJS wrapper, so that the loader compiles its text as it was read: wrapping it at
    // each start made V8 copy the whole megabyte into one new string first (about 240 page faults). Run by require
    // (Node's own compile cache, no cache at all) or by the snapshot builder, it takes that wrapper's arguments;
    // run by the loader as a script, the ones the loader puts at CORE_ARGUMENTS (see server/bootstrap.ts).
    banner: { js: '(function (exports, require, module, __filename, __dirname) {' },
    footer: { js: "}).call(...(globalThis[Symbol.for('notesapp.coreArguments')] ?? [exports, exports, require, module, __filename, __dirname]));" },
    // Names this build in what the server keeps between starts (see server/config-load-cache.ts).
    define: { NOTESAPP_BUILD_ID: JSON.stringify(`${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`) },
    // Note parsing and the editor bridge load on first use, not at every start, as do the built-ins lazy-modules.mjs
    // names, and the MCP SDK's schemas are built on first use (lazy-sdk-schemas.mjs); the other built-ins many
    // modules import whole are shared (shared-builtins.mjs); zod's English only (zod-locales.mjs).
    plugins: [sharedBuiltins(SHARED_BUILTINS.filter((id) => !LAZY_PACKAGES.includes(id))), zodEnglishOnly(), lazyModules(), lazySdkSchemas(), asciiOutput()],
  },
  {
    // What makes a start-up snapshot of the server (see src/core/startup-snapshot.ts), beside server-core.js.
    ...common,
    entryPoints: { 'server-snapshot': 'server/snapshot-entry.ts' },
    outdir: 'dist',
    plugins: [asciiOutput()],
  },
  {
    // The worker thread that parses large notes (see src/core/notes/analyser.ts), beside server-core.js.
    ...common,
    entryPoints: { 'note-worker': 'src/core/notes/analysis-worker.ts' },
    outdir: 'dist',
    plugins: [asciiOutput()],
  },
];

// The integration suite runs inside the extension host; production packaging leaves it out. The output folder is
// emptied first so that a deleted test never lingers as a stale compiled file.
if (!production) {
  fs.rmSync('out/test/integration', { recursive: true, force: true });
  builds.push({
    ...common,
    entryPoints: listTests('test/integration'),
    outbase: 'test/integration',
    outdir: 'out/test/integration',
    external: ['vscode', 'mocha'],
  });
}

if (serverOut !== undefined) {
  // The server as the extension package ships it (minified), and nothing else: no generated files, no dist/.
  await Promise.all(builds.filter((b) => ['server', 'server-core', 'server-snapshot', 'note-worker'].some((name) => name in b.entryPoints)).map((b) => esbuild.build({ ...b, outdir: serverOut, sourcemap: false })));
  fs.chmodSync(path.join(serverOut, 'server.js'), 0o755);
  console.log(`[build] production server in ${serverOut}`);
  process.exit(0);
}

// media/config.schema.json and the README's configuration section are generated from the zod config schema.
await esbuild.build({ ...common, minify: false, sourcemap: false, entryPoints: ['src/vscode/config/artifacts.ts'], outfile: 'out/config-artifacts.cjs' });
for (const file of createRequire(import.meta.url)('./out/config-artifacts.cjs').writeConfigArtifacts(process.cwd())) console.log(`[build] generated ${file}`);

if (watch) {
  const contexts = await Promise.all(builds.map((b) => esbuild.context(b)));
  await Promise.all(contexts.map((c) => c.watch()));
  console.log('[watch] build finished, watching for changes...');
} else {
  const started = Date.now();
  await Promise.all(builds.map((b) => esbuild.build(b)));
  fs.chmodSync('dist/server.js', 0o755);
  console.log(`[build] ${production ? 'production' : 'development'} build in ${Date.now() - started} ms`);
}
