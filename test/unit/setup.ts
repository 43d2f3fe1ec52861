// Root hooks for the unit suite: every server the tests start sees a throw-away home folder, so logs
// (~/.notesapp/logs), the code cache and the default config path never touch the developer's own. The `vscode`
// module, which only exists inside VS Code, is the stand-in of fake-vscode.ts.
import fs from 'node:fs';
import Module from 'node:module';
import os from 'node:os';
import path from 'node:path';

const moduleInternals = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
const resolveFilename = moduleInternals._resolveFilename;
const fakeVscode = path.join(__dirname, 'fake-vscode.ts');
moduleInternals._resolveFilename = function (this: unknown, request: string, ...rest: unknown[]): string {
  return request === 'vscode' ? fakeVscode : resolveFilename.call(this, request, ...rest);
};

const realHome = os.homedir();
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-unit-home-'));

export const mochaHooks = {
  beforeAll(): void {
    process.env.HOME = home;
    process.env.USERPROFILE = home;
    delete process.env.XDG_CONFIG_HOME;
    delete process.env.NOTESAPP_CONFIG_PATH;
  },
  afterAll(): void {
    process.env.HOME = realHome;
    process.env.USERPROFILE = realHome;
    fs.rmSync(home, { recursive: true, force: true });
  },
};
