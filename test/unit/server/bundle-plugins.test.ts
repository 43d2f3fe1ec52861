// Three esbuild plugins that take work out of every start of the bundles in dist/ (see esbuild.mjs): one module
// object per Node built-in (server/shared-builtins.mjs), zod's English only (server/zod-locales.mjs), and the MCP
// SDK's schemas built on first use (server/lazy-sdk-schemas.mjs). Each is built here around a small entry, run, and
// looked for in the built bundles.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import util from 'node:util';
import { build } from 'esbuild';
import { z } from 'zod';
// @ts-expect-error: a plain ES module without types (the build script's plugin)
import { SHARED_BUILTINS, sharedBuiltins } from '../../../server/shared-builtins.mjs';
// @ts-expect-error: a plain ES module without types (the build script's plugin)
import { zodEnglishOnly } from '../../../server/zod-locales.mjs';
// @ts-expect-error: a plain ES module without types (the build script's plugin)
import { LAZY_SCHEMAS_KEY, lazySdkSchemas, makeSchemasLazy } from '../../../server/lazy-sdk-schemas.mjs';

const root = path.join(__dirname, '../../..');
const dist = (name: string) => fs.readFileSync(path.join(root, 'dist', name), 'utf8');
const count = (text: string, part: string) => text.split(part).length - 1;

describe('bundle plugins', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-bundle-plugins-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** Builds `files` (an entry.mjs and what it imports) into a bundle of its own, named `name`, and runs it. */
  async function bundle(name: string, files: Record<string, string>, plugins: unknown[]): Promise<{ text: string; exports: Record<string, unknown> }> {
    for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, file), text);
    const out = path.join(dir, `${name}.cjs`);
    await build({ entryPoints: [path.join(dir, 'entry.mjs')], bundle: true, platform: 'node', format: 'cjs', outfile: out, nodePaths: [path.join(root, 'node_modules')], logLevel: 'silent', plugins: plugins as never });
    return { text: fs.readFileSync(out, 'utf8'), exports: createRequire(out)(out) as Record<string, unknown> };
  }

  describe('one module object per built-in', () => {
    // Four modules importing node:fs each way an ES module can, as the server's modules do.
    const files = {
      'a.mjs': "import fs from 'node:fs';\nexport const a = () => fs;\n",
      'b.mjs': "import fs from 'node:fs';\nexport const b = () => fs.readFileSync;\n",
      'c.mjs': "import * as fs from 'node:fs';\nexport const c = () => fs;\n",
      'd.mjs': "import { readFileSync, constants } from 'node:fs';\nexport const d = () => [readFileSync, constants];\n",
      'entry.mjs': "export { a } from './a.mjs';\nexport { b } from './b.mjs';\nexport { c } from './c.mjs';\nexport { d } from './d.mjs';\n",
    };

    it('gives every importer the built-in as it is, whichever way it imports it', async () => {
      const { exports } = await bundle('shared', files, [sharedBuiltins()]);
      const real = fs;
      const { a, b, c, d } = exports as Record<string, () => unknown>;
      assert.equal(a(), real, 'default import: the module itself');
      assert.equal(b(), real.readFileSync);
      const ns = c() as typeof fs & { default: unknown };
      assert.equal(ns.readFileSync, real.readFileSync, 'namespace import: each export');
      assert.equal(ns.default, real, "namespace import: the module as its default");
      assert.deepEqual(d(), [real.readFileSync, real.constants], 'named imports');
    });

    it('makes one copy of its exports for all importers, where each importer made its own', async () => {
      const plain = await bundle('fs-plain', files, []);
      const shared = await bundle('fs-shared', files, [sharedBuiltins()]);
      // Without the plugin: one __toESM copy per default or namespace import.
      assert.equal(count(plain.text, '__toESM(require("node:fs")'), 3);
      assert.equal(count(shared.text, '__toESM(require("node:fs")'), 1);
      assert.equal(count(shared.text, 'require("node:fs")'), 2, 'the re-export and the default');
    });

    it('leaves a built-in imported by name alone: taken as it is, never copied', async () => {
      const named = { 'entry.mjs': "import { parseArgs } from 'node:util';\nimport { readFileSync } from 'node:fs';\nexport const p = () => [parseArgs, readFileSync];\n" };
      const { text, exports } = await bundle('named', named, [sharedBuiltins()]);
      assert.deepEqual((exports.p as () => unknown[])(), [util.parseArgs, fs.readFileSync]);
      // Neither copied for its importer nor re-exported by a shared module (whose copy would read its exports).
      assert.equal(count(text, '__toESM(require("node:util")'), 0, 'node:util is not copied');
      assert.doesNotMatch(text, /__reExport\([^()]*require\("node:util"\)/, 'node:util is not shared');
      assert.match(text, /__reExport\([^()]*require\("node:fs"\)/, 'node:fs, imported by name here too, is shared');
      assert.ok(!SHARED_BUILTINS.includes('node:util'));
    });

    it('is how dist/ requires the built-ins its modules import whole: at most twice per bundle', () => {
      for (const name of ['server-core.js', 'server.js', 'extension.js']) {
        const text = dist(name);
        assert.ok(text.includes('require("node:fs")'), `${name} requires node:fs`);
        for (const id of SHARED_BUILTINS.map((b: string) => `require("${b}")`)) assert.ok(count(text, id) <= 2, `${name}: ${id} ${count(text, id)} times`);
      }
    });
  });

  describe("zod's English only", () => {
    const files = {
      'entry.mjs': "import { z } from 'zod';\nexport const locales = z.locales;\nexport const coreLocales = z.core.locales;\nexport const message = () => z.string().safeParse(1).error.issues[0].message;\n",
    };

    it('keeps English, which zod speaks, and leaves the other languages out', async () => {
      const plain = await bundle('zod-plain', files, []);
      const english = await bundle('zod-english', files, [zodEnglishOnly()]);
      assert.ok(Object.keys(plain.exports.locales as object).length > 40, 'zod has many languages');
      assert.deepEqual(Object.keys(english.exports.locales as object), ['en']);
      assert.deepEqual(Object.keys(english.exports.coreLocales as object), ['en']);
      // The same message as zod itself gives, unbundled.
      const expected = z.string().safeParse(1).error?.issues[0].message;
      assert.match(expected ?? '', /expected string/);
      assert.equal((english.exports.message as () => string)(), expected);
      assert.ok(english.text.length < plain.text.length * 0.9, `${english.text.length} against ${plain.text.length} characters`);
    });

    it('is how dist/ carries zod: no other language in the server or the extension', () => {
      // A phrase of zod's German, read from zod itself so that the check cannot pass for want of one.
      const german = /datetime: "([^"]+)"/.exec(fs.readFileSync(path.join(root, 'node_modules/zod/v4/locales/de.js'), 'utf8'))?.[1];
      assert.ok(german, "zod's German locale has a datetime entry");
      for (const name of ['server-core.js', 'extension.js']) assert.ok(!dist(name).includes(german), `${name} holds zod's German`);
    });
  });

  describe("the MCP SDK's schemas built on first use", () => {
    // A module laid out as the SDK's types.js is: schemas made of zod and of each other, and what is not a schema.
    const types = `import * as z from 'zod/v4';
export const VERSION = '1.0';
export const built = [];
const counted = (name, schema) => (built.push(name), schema);
const BaseSchema = counted('Base', z.object({ id: z.string() }));
export const ItemSchema = counted('Item', BaseSchema.extend({ size: z.number().int().describe('bytes') }));
export const OtherSchema = counted('Other', z.object({ kind: z.literal('other') }));
export const EitherSchema = counted('Either', z.union([ItemSchema, OtherSchema]));
export const UnusedSchema = counted('Unused', z.object({ never: z.boolean() }));
export const AliasSchema = ItemSchema;
export const isItem = (value) => ItemSchema.safeParse(value).success;
`;
    const files = {
      'types.mjs': types,
      'entry.mjs': "import { z } from 'zod/v4';\nexport * from './types.mjs';\nexport { z };\n",
    };
    const plugin = () => lazySdkSchemas(/types\.mjs$/);
    const hook = () => (globalThis as Record<symbol, { total(): number; built(): number; buildAll(): void } | undefined>)[Symbol.for(LAZY_SCHEMAS_KEY)];

    it('builds no schema as the module loads, and each one the first time it is used, once', async () => {
      const { exports: m } = await bundle('lazy-schemas', files, [plugin()]);
      const built = m.built as string[];
      assert.deepEqual(built, [], 'none built as the module loads');
      assert.equal(m.VERSION, '1.0', 'what is not a schema is as it was');
      const item = m.ItemSchema as z.ZodType;
      assert.deepEqual(item.parse({ id: 'a', size: 3 }), { id: 'a', size: 3 });
      assert.deepEqual(built, ['Base', 'Item'], 'the schema and what it is made of');
      assert.equal((m.isItem as (v: unknown) => boolean)({ id: 'a', size: 1.5 }), false);
      assert.equal(m.AliasSchema, m.ItemSchema, 'an alias is the same stand-in');
      const either = m.EitherSchema as z.ZodType;
      assert.equal(either.safeParse({ kind: 'other' }).success, true);
      assert.equal(either.safeParse({ kind: 'else' }).success, false);
      assert.deepEqual([...built].sort(), ['Base', 'Either', 'Item', 'Other']);
      assert.equal(hook()?.total(), 5);
      assert.equal(hook()?.built(), 4, 'the unused one is never built');
      hook()?.buildAll();
      assert.deepEqual([...built].sort(), ['Base', 'Either', 'Item', 'Other', 'Unused'], 'all built on demand, each once');
    });

    it('gives stand-ins that zod and its users take for the schemas', async () => {
      const { exports: m } = await bundle('lazy-schemas-use', files, [plugin()]);
      const item = m.ItemSchema as z.ZodObject;
      const zod = m.z as typeof z;
      assert.ok(item instanceof zod.ZodType, 'instanceof');
      assert.ok('_zod' in item);
      assert.deepEqual(Object.keys(item.shape), ['id', 'size']);
      assert.deepEqual(Object.keys(item), Object.keys(zod.object({})), 'its keys');
      for (const key of Reflect.ownKeys(zod.object({}))) assert.ok(Reflect.ownKeys(item).includes(key), `its own key ${String(key)}`);
      assert.equal(Object.getPrototypeOf(item), Object.getPrototypeOf(zod.object({})), 'its prototype');
      assert.deepEqual(zod.toJSONSchema(item), zod.toJSONSchema(zod.object({ id: zod.string(), size: zod.number().int().describe('bytes') })), 'its JSON Schema');
      const extended = item.extend({ tag: zod.string() });
      assert.deepEqual(extended.parse({ id: 'a', size: 1, tag: 't' }), { id: 'a', size: 1, tag: 't' });
      assert.equal(zod.array(item).safeParse([{ id: 'a', size: 1 }, { id: 'b' }]).success, false);
    });

    it('leaves a module that holds no schema as it was, and says so', () => {
      const source = "export const VERSION = '1';\nexport const make = () => 1;\n";
      assert.deepEqual(makeSchemasLazy(source).count, 0);
      assert.ok(makeSchemasLazy(types).count === 5);
    });

    it("is how dist/ carries the SDK's schemas (lazy-modules.test.ts counts those the handshake builds)", () => {
      const text = dist('server-core.js');
      assert.ok(text.includes(`Symbol.for(${JSON.stringify(LAZY_SCHEMAS_KEY)})`), 'the server bundle makes them lazy');
      const sdkTypes = fs.readFileSync(path.join(root, 'node_modules/@modelcontextprotocol/sdk/dist/esm/types.js'), 'utf8');
      assert.ok(makeSchemasLazy(sdkTypes).count > 100, "the SDK's schemas are found");
    });
  });
});
