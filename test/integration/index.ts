// Suite entry loaded by the extension host (browser-hosted runner or @vscode/test-electron): runs every *.test.js.
import fs from 'node:fs';
import path from 'node:path';
import Mocha from 'mocha';

export async function run(): Promise<void> {
  const grep = process.env.NOTESAPP_TEST_GREP;
  const mocha = new Mocha({ ui: 'bdd', color: process.env.NOTESAPP_TEST_COLOR !== '0', timeout: 60_000, reporter: 'spec', ...(grep ? { grep } : {}) });
  const files = fs
    .readdirSync(__dirname, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.test.js'))
    .sort();
  for (const f of files) mocha.addFile(path.join(__dirname, f));
  await new Promise<void>((resolve, reject) => {
    mocha.run((failures) => (failures > 0 ? reject(new Error(`${failures} integration test(s) failed.`)) : resolve()));
  });
}
