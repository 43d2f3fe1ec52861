// The generated JSON Schema and README section are current, and the schema says what the zod schema says.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { configSchema, defaultConfig } from '../../../src/core/config/schema';
import { configJsonSchema, renderConfigSection, schemaText, SECTION_END, SECTION_START, withConfigSection } from '../../../src/vscode/config/artifacts';

const root = path.resolve(__dirname, '../../..');
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('config artifacts (JSON Schema, README section)', () => {
  it('media/config.schema.json is the one generated from the zod schema (run `npm run build` after changing it)', () => {
    assert.equal(fs.readFileSync(path.join(root, 'media', 'config.schema.json'), 'utf8'), schemaText());
  });

  it('the README configuration section is the generated one', () => {
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf(SECTION_START) + SECTION_START.length, readme.indexOf(SECTION_END));
    assert.equal(section, `\n${renderConfigSection()}`);
  });

  it('replacing the section leaves the rest of the README alone', () => {
    const readme = `# T\n\n<!-- section:a -->\nA\n<!-- /section:a -->\n${SECTION_START}\nold\n${SECTION_END}\n<!-- section:b -->\nB\n`;
    const out = withConfigSection(readme);
    assert.ok(out.startsWith('# T\n\n<!-- section:a -->\nA\n<!-- /section:a -->\n'));
    assert.ok(out.endsWith(`${SECTION_END}\n<!-- section:b -->\nB\n`));
    assert.ok(!out.includes('\nold\n'));
    assert.throws(() => withConfigSection('# no markers'), /markers/);
  });

  it('the JSON Schema allows a "$schema" key (editors add one) but no other unknown key', () => {
    const schema = configJsonSchema() as Json;
    assert.equal(schema.additionalProperties, false);
    assert.equal(schema.properties.$schema.type, 'string');
    assert.ok(!(schema.required ?? []).includes('$schema'));
    assert.equal(configSchema.safeParse({ $schema: './config.schema.json' }).success, true);
  });

  it('the README lists every field with its default and constraint', () => {
    const section = renderConfigSection();
    const d = defaultConfig();
    assert.match(section, /\| `editor\.fontSize` \| number \| `16` \| 10 to 32 \|/);
    assert.match(section, /\| `editor\.lineHeight` \| number \| `1\.6` \| 1 to 3 \|/);
    assert.match(section, /\| `integrations\.mcp\.port` \| integer \| `3456` \| 1 to 65535 \|/);
    assert.match(section, /\| `security\.maxFileSize` \| integer \| `10485760` \| > 0 \|/);
    assert.match(section, /\| `files\.fileExtension` \| string \| `"\.md"` \| form `\.ext`/);
    assert.match(section, /\| `customTheme\.colors\.background` \| string \| \(none\) \| color `#rrggbb`/);
    for (const [section_, fields] of Object.entries(d)) {
      if (fields && typeof fields === 'object' && !Array.isArray(fields) && !['shortcuts', 'integrations'].includes(section_) && section_ !== 'plugins') {
        for (const key of Object.keys(fields)) assert.ok(section.includes(`| \`${section_}.${key}\` |`), `${section_}.${key} is listed`);
      }
    }
  });

  it('the JSON Schema has the constraints, defaults and descriptions the editor shows', () => {
    const schema = configJsonSchema() as Json;
    assert.equal(schema.$schema, 'http://json-schema.org/draft-07/schema#');
    const fontSize = schema.properties.editor.properties.fontSize;
    assert.equal(fontSize.minimum, 10);
    assert.equal(fontSize.maximum, 32);
    assert.equal(fontSize.default, 16);
    assert.match(fontSize.description, /font size/i);
    assert.equal(schema.properties.editor.additionalProperties, false, 'unknown keys are flagged, as the loader reports them');
    assert.deepEqual(schema.properties.theme.enum, ['light', 'dark', 'system', 'custom']);
    assert.equal(schema.required, undefined, 'every top-level field is optional (it has a default)');
  });

  it('the JSON Schema accepts what zod accepts and rejects what zod rejects (a few documents)', () => {
    // A tiny check of the draft-07 keywords we rely on, against zod's verdict.
    const schema = configJsonSchema() as Json;
    const fontSize = schema.properties.editor.properties.fontSize;
    for (const v of [9, 10, 32, 33]) {
      const jsonOk = v >= fontSize.minimum && v <= fontSize.maximum;
      assert.equal(jsonOk, configSchema.safeParse({ editor: { fontSize: v } }).success, `fontSize ${v}`);
    }
  });
});
