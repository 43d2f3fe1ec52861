// How the extension launches the MCP server: with VS Code's own ripgrep when VS Code has one.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RIPGREP_ENV } from '../../../src/core/workspace/ripgrep';
import { launchCommand, vscodeRipgrep } from '../../../src/vscode/mcp/server-process';

describe('extension: launching the MCP server', () => {
  let appRoot: string;
  beforeEach(() => {
    appRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-approot-'));
  });
  afterEach(() => fs.rmSync(appRoot, { recursive: true, force: true }));

  const place = (...parts: string[]) => {
    const file = path.join(appRoot, ...parts);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '');
    return file;
  };

  it("finds VS Code's ripgrep where recent versions keep it, then where earlier ones did, else none", () => {
    assert.equal(vscodeRipgrep(appRoot, 'linux', 'x64'), undefined);
    const unpacked = place('node_modules.asar.unpacked', '@vscode', 'ripgrep', 'bin', 'rg');
    assert.equal(vscodeRipgrep(appRoot, 'linux', 'x64'), unpacked);
    const older = place('node_modules', '@vscode', 'ripgrep', 'bin', 'rg');
    assert.equal(vscodeRipgrep(appRoot, 'linux', 'x64'), older);
    place('node_modules', '@vscode', 'ripgrep-universal', 'bin', 'darwin-arm64', 'rg');
    assert.equal(vscodeRipgrep(appRoot, 'linux', 'x64'), older, 'another platform\'s binary is not taken');
    const universal = place('node_modules', '@vscode', 'ripgrep-universal', 'bin', 'linux-x64', 'rg');
    assert.equal(vscodeRipgrep(appRoot, 'linux', 'x64'), universal);
    const windows = place('node_modules', '@vscode', 'ripgrep-universal', 'bin', 'win32-x64', 'rg.exe');
    assert.equal(vscodeRipgrep(appRoot, 'win32', 'x64'), windows);
  });

  it('hands the server the ripgrep it was given, and nothing when there is none', () => {
    const base = { serverScript: '/ext/dist/server.js', workspaceFolder: '/notes', configPath: '/cfg/config.json', nodePath: undefined, bridge: undefined };
    assert.equal(launchCommand({ ...base, ripgrep: '/vscode/rg' }).env[RIPGREP_ENV], '/vscode/rg');
    assert.equal(RIPGREP_ENV in launchCommand(base).env, false);
  });
});
