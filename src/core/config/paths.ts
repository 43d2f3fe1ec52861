// Where config.json lives (spec 2.1): the platform path, or NOTESAPP_CONFIG_PATH when set.
import os from 'node:os';
import path from 'node:path';

export const APP_ID = 'com.notesapp.app';

export interface PathEnvironment {
  platform?: NodeJS.Platform;
  env?: NodeJS.ProcessEnv;
  homedir?: string;
}

/** The platform's folder for the app's configuration, ignoring any override. */
export function platformConfigDir({ platform = process.platform, env = process.env, homedir = os.homedir() }: PathEnvironment = {}): string {
  switch (platform) {
    case 'darwin':
      return path.posix.join(homedir, 'Library', 'Application Support', APP_ID);
    case 'win32':
      return path.win32.join(env.APPDATA || path.win32.join(homedir, 'AppData', 'Roaming'), APP_ID);
    default:
      // The spec names ~/.config; XDG_CONFIG_HOME is honoured because that is what ~/.config means on Linux. A
      // relative one is ignored, as the XDG specification says: it would name another file in every working folder
      // (the extension's and the server's differ).
      return path.posix.join(env.XDG_CONFIG_HOME && path.posix.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.posix.join(homedir, '.config'), APP_ID);
  }
}

/** The config file in use: NOTESAPP_CONFIG_PATH (must be absolute) or the platform path. */
export function configFilePath(opts: PathEnvironment = {}): string {
  const env = opts.env ?? process.env;
  const override = env.NOTESAPP_CONFIG_PATH;
  if (override) {
    const platformPath = (opts.platform ?? process.platform) === 'win32' ? path.win32 : path.posix;
    if (!platformPath.isAbsolute(override)) {
      throw new Error(`NOTESAPP_CONFIG_PATH must be an absolute path to a config file, got "${override}"`);
    }
    return platformPath.normalize(override);
  }
  const dir = platformConfigDir(opts);
  return ((opts.platform ?? process.platform) === 'win32' ? path.win32 : path.posix).join(dir, 'config.json');
}

/** The server log folder of spec 7.6: ~/.notesapp/logs. */
export function logDir(homedir = os.homedir()): string {
  return path.join(homedir, '.notesapp', 'logs');
}

/**
 * Whether two absolute paths name the same place as the platform's usual file system compares names: letter case
 * ignored on Windows and macOS (VS Code gives `c:\\Users\\…` where the environment says `C:\\Users\\…`), separators,
 * `.`/`..` and a trailing separator resolved.
 */
export function samePath(a: string, b: string, platform: NodeJS.Platform = process.platform): boolean {
  const p = platform === 'win32' ? path.win32 : path.posix;
  const norm = (x: string) => {
    const resolved = p.resolve(x);
    return platform === 'win32' || platform === 'darwin' ? resolved.toLowerCase() : resolved;
  };
  return norm(a) === norm(b);
}
