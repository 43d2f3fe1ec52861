// Translates the config's accelerators (`CommandOrControl+Shift+F`) into VS Code keybindings per platform.

/** The spec's action ids and the VS Code commands that do the same. */
export const SHORTCUT_COMMANDS: Record<string, string> = {
  'save-file': 'workbench.action.files.save',
  'new-file': 'explorer.newFile',
  'command-palette': 'workbench.action.showCommands',
  'global-search': 'workbench.action.findInFiles',
};

export type KeyPlatform = 'darwin' | 'win32' | 'linux';

const KEYS: Record<string, string> = {
  space: 'space',
  tab: 'tab',
  backspace: 'backspace',
  delete: 'delete',
  insert: 'insert',
  return: 'enter',
  enter: 'enter',
  up: 'up',
  down: 'down',
  left: 'left',
  right: 'right',
  home: 'home',
  end: 'end',
  pageup: 'pageup',
  pagedown: 'pagedown',
  escape: 'escape',
  esc: 'escape',
};

function modifiers(name: string, platform: KeyPlatform): string[] {
  const mac = platform === 'darwin';
  switch (name.toLowerCase()) {
    case 'commandorcontrol':
    case 'cmdorctrl':
      return [mac ? 'cmd' : 'ctrl'];
    case 'command':
    case 'cmd':
    case 'super':
    case 'meta':
      return [mac ? 'cmd' : platform === 'win32' ? 'win' : 'meta'];
    case 'control':
    case 'ctrl':
      return ['ctrl'];
    case 'alt':
    case 'option':
      return ['alt'];
    case 'altgr':
      return ['ctrl', 'alt'];
    case 'shift':
      return ['shift'];
    default:
      throw new Error(`unknown modifier "${name}"`);
  }
}

/** `CommandOrControl+Shift+F` -> `ctrl+shift+f` (Linux, Windows) or `cmd+shift+f` (macOS). */
export function acceleratorToKeybinding(accelerator: string, platform: KeyPlatform): string {
  const parts = accelerator.split('+');
  // "Plus" names the + key, which VS Code writes as shift+= on the US layout.
  let key = parts.pop() ?? '';
  const mods = new Set(parts.flatMap((p) => modifiers(p, platform)));
  if (key === '' && accelerator.endsWith('+')) throw new Error(`"${accelerator}" has no key`);
  if (key.toLowerCase() === 'plus') {
    mods.add('shift');
    key = '=';
  } else if (/^f([1-9]|1[0-9]|2[0-4])$/i.test(key) || /^[a-z0-9]$/i.test(key)) key = key.toLowerCase();
  else if (KEYS[key.toLowerCase()]) key = KEYS[key.toLowerCase()];
  else if (!/^[-=[\];',./\\`]$/.test(key)) throw new Error(`unknown key "${key}"`);
  // VS Code's own order, so that equal bindings compare equal.
  const ordered = ['ctrl', 'shift', 'alt', 'cmd', 'win', 'meta'].filter((m) => mods.has(m));
  return [...ordered, key].join('+');
}

export interface KeybindingEntry {
  key: string;
  command: string;
}

export interface ShortcutTranslation {
  keybindings: KeybindingEntry[];
  /** Ids with no VS Code command (custom ids that are not command ids), with the reason. */
  skipped: string[];
}

/**
 * Keybindings for the configured shortcuts. Known action ids map to their VS Code command; a custom id
 * that looks like a VS Code command id (contains a dot, e.g. `editor.action.formatDocument`) is bound to
 * that command; any other custom id has nothing to run in VS Code and is skipped with a reason.
 */
export function shortcutsToKeybindings(shortcuts: Record<string, string>, platform: KeyPlatform): ShortcutTranslation {
  const keybindings: KeybindingEntry[] = [];
  const skipped: string[] = [];
  for (const [id, accelerator] of Object.entries(shortcuts)) {
    const command = SHORTCUT_COMMANDS[id] ?? (id.includes('.') ? id : undefined);
    if (!command) {
      skipped.push(`${id}: no VS Code command for this action id`);
      continue;
    }
    try {
      keybindings.push({ key: acceleratorToKeybinding(accelerator, platform), command });
    } catch (err) {
      skipped.push(`${id}: ${(err as Error).message}`);
    }
  }
  return { keybindings, skipped };
}
