// Where config.json lives, and how the extension compares it (and the notes folder) with what VS Code reports.
import * as assert from 'node:assert/strict';
import { configFilePath, samePath } from '../../../src/core/config/paths';

describe('config paths', () => {
  it('the platform path of each system, and an absolute NOTESAPP_CONFIG_PATH in its place', () => {
    assert.equal(configFilePath({ platform: 'linux', env: {}, homedir: '/home/u' }), '/home/u/.config/com.notesapp.app/config.json');
    assert.equal(configFilePath({ platform: 'darwin', env: {}, homedir: '/Users/u' }), '/Users/u/Library/Application Support/com.notesapp.app/config.json');
    assert.equal(configFilePath({ platform: 'win32', env: { APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, homedir: 'C:\\Users\\u' }), 'C:\\Users\\u\\AppData\\Roaming\\com.notesapp.app\\config.json');
    assert.equal(configFilePath({ platform: 'linux', env: { NOTESAPP_CONFIG_PATH: '/etc/notes/../notes/c.json' } }), '/etc/notes/c.json');
    assert.throws(() => configFilePath({ platform: 'linux', env: { NOTESAPP_CONFIG_PATH: 'rel/c.json' } }), /must be an absolute path/);
  });

  it('honours an absolute XDG_CONFIG_HOME and ignores a relative one, which would name another file in each working folder', () => {
    assert.equal(configFilePath({ platform: 'linux', env: { XDG_CONFIG_HOME: '/srv/u/conf' }, homedir: '/home/u' }), '/srv/u/conf/com.notesapp.app/config.json');
    assert.equal(configFilePath({ platform: 'linux', env: { XDG_CONFIG_HOME: 'conf' }, homedir: '/home/u' }), '/home/u/.config/com.notesapp.app/config.json');
  });

  it('samePath ignores letter case on Windows and macOS (VS Code lowercases the drive letter), not on Linux', () => {
    assert.ok(samePath('c:\\Users\\u\\AppData\\Roaming\\com.notesapp.app\\config.json', 'C:\\Users\\u\\AppData\\Roaming\\com.notesapp.app\\config.json', 'win32'));
    assert.ok(samePath('C:\\Notes\\', 'c:/notes', 'win32'));
    assert.ok(samePath('/Users/u/Notes', '/users/u/notes/', 'darwin'));
    assert.ok(samePath('/home/u/notes/./a/..', '/home/u/notes', 'linux'));
    assert.ok(!samePath('/home/u/Notes', '/home/u/notes', 'linux'));
    assert.ok(!samePath('C:\\Notes', 'D:\\Notes', 'win32'));
  });
});
