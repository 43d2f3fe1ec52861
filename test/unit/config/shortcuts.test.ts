// Accelerators of the config file translated to VS Code keybindings on each platform.
import * as assert from 'node:assert/strict';
import { acceleratorToKeybinding, shortcutsToKeybindings } from '../../../src/core/config/shortcuts';
import { defaultConfig } from '../../../src/core/config/schema';

describe('config shortcuts -> VS Code keybindings', () => {
  it('translates CommandOrControl per platform', () => {
    assert.equal(acceleratorToKeybinding('CommandOrControl+Shift+F', 'linux'), 'ctrl+shift+f');
    assert.equal(acceleratorToKeybinding('CommandOrControl+Shift+F', 'win32'), 'ctrl+shift+f');
    assert.equal(acceleratorToKeybinding('CommandOrControl+Shift+F', 'darwin'), 'shift+cmd+f');
    assert.equal(acceleratorToKeybinding('CmdOrCtrl+S', 'darwin'), 'cmd+s');
  });

  it('translates other modifiers and named keys', () => {
    assert.equal(acceleratorToKeybinding('Alt+F4', 'win32'), 'alt+f4');
    assert.equal(acceleratorToKeybinding('Option+Return', 'darwin'), 'alt+enter');
    assert.equal(acceleratorToKeybinding('Super+Space', 'linux'), 'meta+space');
    assert.equal(acceleratorToKeybinding('Meta+Esc', 'win32'), 'win+escape');
    assert.equal(acceleratorToKeybinding('Ctrl+PageDown', 'darwin'), 'ctrl+pagedown');
    assert.equal(acceleratorToKeybinding('Shift+Ctrl+/', 'linux'), 'ctrl+shift+/');
    assert.equal(acceleratorToKeybinding('CommandOrControl+Plus', 'linux'), 'ctrl+shift+=');
    assert.equal(acceleratorToKeybinding('AltGr+E', 'win32'), 'ctrl+alt+e');
  });

  it('rejects what it cannot translate', () => {
    assert.throws(() => acceleratorToKeybinding('Hyper+S', 'linux'), /unknown modifier "Hyper"/);
    assert.throws(() => acceleratorToKeybinding('Ctrl+Banana', 'linux'), /unknown key "Banana"/);
  });

  it('binds the spec\'s action ids, VS Code command ids given as custom ids, and skips other custom ids with a reason', () => {
    const { keybindings, skipped } = shortcutsToKeybindings(
      { ...defaultConfig().shortcuts, 'global-search': 'CommandOrControl+Alt+F', 'editor.action.formatDocument': 'Alt+Shift+F', 'toggle-zen': 'Ctrl+K' },
      'linux',
    );
    assert.deepEqual(keybindings, [
      { key: 'ctrl+s', command: 'workbench.action.files.save' },
      { key: 'ctrl+n', command: 'explorer.newFile' },
      { key: 'ctrl+shift+p', command: 'workbench.action.showCommands' },
      { key: 'ctrl+alt+f', command: 'workbench.action.findInFiles' },
      { key: 'shift+alt+f', command: 'editor.action.formatDocument' },
    ]);
    assert.deepEqual(skipped, ['toggle-zen: no VS Code command for this action id']);
  });
});
