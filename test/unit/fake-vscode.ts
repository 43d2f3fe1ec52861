// A small stand-in for the `vscode` module (setup.ts resolves `vscode` to it), so the extension's own code runs in
// plain Node: commands run through `commands.executeCommand`, what the user would be shown is kept in `shown`.
import path from 'node:path';
import { recordingLogger } from './config/helpers';

export class EventEmitter<T> {
  private readonly listeners = new Set<(e: T) => void>();
  readonly event = (fn: (e: T) => void): Disposable => {
    this.listeners.add(fn);
    return new Disposable(() => this.listeners.delete(fn));
  };
  fire(e: T): void {
    for (const fn of [...this.listeners]) fn(e);
  }
  dispose(): void {
    this.listeners.clear();
  }
}

export class Disposable {
  constructor(private readonly onDispose: () => void) {}
  dispose(): void {
    this.onDispose();
  }
}

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly fsPath: string,
  ) {}
  static file(p: string): Uri {
    return new Uri('file', path.resolve(p));
  }
  get path(): string {
    return this.fsPath;
  }
  toString(): string {
    return `${this.scheme}://${this.fsPath}`;
  }
}

export class ThemeColor {
  constructor(readonly id: string) {}
}

export enum StatusBarAlignment {
  Left = 1,
  Right = 2,
}

export class McpStdioServerDefinition {
  cwd?: Uri;
  constructor(
    readonly label: string,
    readonly command: string,
    readonly args: string[],
    readonly env: Record<string, string | number | null>,
    readonly version?: string,
  ) {}
}

/** What the user was shown: notifications, in order. */
export const shown: { kind: 'error' | 'warning' | 'info'; message: string }[] = [];

const registered = new Map<string, (...args: unknown[]) => unknown>();

function notification(kind: 'error' | 'warning' | 'info') {
  return (message: string): Promise<undefined> => {
    shown.push({ kind, message });
    return Promise.resolve(undefined);
  };
}

export const window = {
  showErrorMessage: notification('error'),
  showWarningMessage: notification('warning'),
  showInformationMessage: notification('info'),
  /** Input boxes and quick picks are answered with `undefined` (cancelled) unless a test queues answers. */
  answers: [] as unknown[],
  showInputBox: (): Promise<unknown> => Promise.resolve(window.answers.shift()),
  showQuickPick: (): Promise<unknown> => Promise.resolve(window.answers.shift()),
  createStatusBarItem: () => ({ text: '', tooltip: '', show: () => undefined, hide: () => undefined, dispose: () => undefined }),
  createOutputChannel: () => fakeLog(),
};

export const commands = {
  registerCommand(id: string, fn: (...args: unknown[]) => unknown): Disposable {
    registered.set(id, fn);
    return new Disposable(() => registered.delete(id));
  },
  async executeCommand(id: string, ...args: unknown[]): Promise<unknown> {
    const fn = registered.get(id);
    if (!fn) throw new Error(`command '${id}' not found`);
    return fn(...args);
  },
};

export const workspace = {
  workspaceFolders: undefined as { uri: Uri; name: string; index: number }[] | undefined,
  getConfiguration: () => ({ get: () => undefined }),
  onDidChangeWorkspaceFolders: () => new Disposable(() => undefined),
};

export const env = {
  appRoot: path.join(path.sep, 'nonexistent-vscode-app-root'),
  clipboard: { writeText: async (_text: string): Promise<void> => undefined },
};

export const lm = {
  registerMcpServerDefinitionProvider: () => new Disposable(() => undefined),
};

/** A LogOutputChannel that keeps its lines. */
export function fakeLog(): { lines: string[]; info(m: string): void; warn(m: string): void; error(m: string): void; debug(m: string): void; trace(m: string): void; show(): void; dispose(): void } {
  const log = recordingLogger();
  const { lines } = log;
  return {
    ...log,
    debug: (m) => lines.push(`debug ${m}`),
    trace: (m) => lines.push(`trace ${m}`),
    show: () => undefined,
    dispose: () => undefined,
  };
}

/** Back to no folder open, nothing shown, no commands, no queued answers. */
export function resetFake(): void {
  shown.length = 0;
  registered.clear();
  window.answers.length = 0;
  workspace.workspaceFolders = undefined;
}
