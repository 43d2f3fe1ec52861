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
  /** Any other scheme (`untitled:`, a read-only file system's); the path is kept as given. */
  static from(parts: { scheme: string; path: string }): Uri {
    return new Uri(parts.scheme, parts.path);
  }
  static joinPath(base: Uri, ...parts: string[]): Uri {
    return new Uri(base.scheme, path.join(base.fsPath, ...parts));
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

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}

export class Range {
  constructor(
    readonly start: Position,
    readonly end: Position,
  ) {}
  get isEmpty(): boolean {
    return this.start.line === this.end.line && this.start.character === this.end.character;
  }
}

export class Selection extends Range {
  constructor(
    readonly anchor: Position,
    readonly active: Position,
  ) {
    const before = anchor.line < active.line || (anchor.line === active.line && anchor.character <= active.character);
    super(before ? anchor : active, before ? active : anchor);
  }
}

export enum EndOfLine {
  LF = 1,
  CRLF = 2,
}

interface TextReplacement {
  range: Range;
  text: string;
}

/**
 * A text document as VS Code's model keeps it: inserted text takes the document's line ends, and the version goes up
 * with every edit that is not empty. `readOnly` stands for every way VS Code makes an editor read-only (a read-only
 * file system, `files.readonlyInclude`, "Set Active Editor Read-only in Session").
 */
export class FakeTextDocument {
  version = 1;
  isDirty = false;
  constructor(
    readonly uri: Uri,
    private text: string,
    readonly options: { languageId?: string; eol?: EndOfLine; readOnly?: boolean } = {},
  ) {}
  get languageId(): string {
    return this.options.languageId ?? 'markdown';
  }
  get eol(): EndOfLine {
    return this.options.eol ?? EndOfLine.LF;
  }
  get readOnly(): boolean {
    return this.options.readOnly ?? false;
  }
  getText(range?: Range): string {
    return range ? this.text.slice(this.offsetAt(range.start), this.offsetAt(range.end)) : this.text;
  }
  get lineCount(): number {
    return this.text.split('\n').length;
  }
  lineAt(line: number): { range: Range } {
    const text = this.text.split('\n')[line];
    if (text === undefined) throw new Error('Illegal value for `line`');
    return { range: new Range(new Position(line, 0), new Position(line, text.length)) };
  }
  offsetAt(position: Position): number {
    const lines = this.text.split('\n');
    let offset = 0;
    for (let line = 0; line < position.line && line < lines.length; line++) offset += lines[line].length + 1;
    return Math.min(offset + position.character, this.text.length);
  }
  positionAt(offset: number): Position {
    const before = this.text.slice(0, offset).split('\n');
    return new Position(before.length - 1, before[before.length - 1].length);
  }
  /** Applies the replacements (ranges of the text before any of them); returns where each inserted text ends. */
  apply(replacements: readonly TextReplacement[]): number[] {
    const eol = this.eol === EndOfLine.CRLF ? '\r\n' : '\n';
    const edits = replacements
      .map((r, index) => ({ index, start: this.offsetAt(r.range.start), end: this.offsetAt(r.range.end), text: r.text.replace(/\r\n|\r|\n/g, eol) }))
      .sort((a, b) => a.start - b.start);
    const ends: number[] = [];
    let result = '';
    let from = 0;
    for (const e of edits) {
      result += this.text.slice(from, e.start) + e.text;
      ends[e.index] = result.length;
      from = e.end;
    }
    result += this.text.slice(from);
    if (edits.some((e) => e.start !== e.end || e.text !== '')) {
      this.text = result;
      this.version++;
      this.isDirty = true;
    }
    return ends;
  }
}

type EditBuilder = { replace(range: Range, text: string): void; insert(position: Position, text: string): void };

/**
 * An edit travels to the renderer and back (a few milliseconds in VS Code), so one prepared against a version that
 * is gone by the time it arrives is refused.
 */
const rendererTurn = () => new Promise((resolve) => setTimeout(resolve, 10));

export class FakeTextEditor {
  selections: Selection[] = [new Selection(new Position(0, 0), new Position(0, 0))];
  constructor(readonly document: FakeTextDocument) {}
  get selection(): Selection {
    return this.selections[0];
  }
  /** As VS Code's TextEditor.edit: false when the document changed since the call; true, but no edit, when read-only. */
  async edit(callback: (builder: EditBuilder) => void): Promise<boolean> {
    const version = this.document.version;
    const replacements: TextReplacement[] = [];
    callback({
      replace: (range, text) => replacements.push({ range, text }),
      insert: (position, text) => replacements.push({ range: new Range(position, position), text }),
    });
    await rendererTurn();
    if (this.document.version !== version) return false;
    if (this.document.readOnly) return true;
    const ends = this.document.apply(replacements);
    if (replacements.length === this.selections.length) {
      this.selections = ends.map((end) => {
        const at = this.document.positionAt(end);
        return new Selection(at, at);
      });
    }
    return true;
  }
}

export class WorkspaceEdit {
  readonly entries: Array<{ uri: Uri; range: Range; text: string }> = [];
  replace(uri: Uri, range: Range, text: string): void {
    this.entries.push({ uri, range, text });
  }
}

export const window = {
  activeTextEditor: undefined as FakeTextEditor | undefined,
  visibleTextEditors: [] as FakeTextEditor[],
  showErrorMessage: notification('error'),
  showWarningMessage: notification('warning'),
  showInformationMessage: notification('info'),
  /**
   * Input boxes and quick picks are answered with `undefined` (cancelled) unless a test queues answers. A queued
   * function stands for a user who takes a while: it is called when the box is shown, and what it resolves to is the
   * answer.
   */
  answers: [] as unknown[],
  showInputBox: (): Promise<unknown> => nextAnswer(),
  showQuickPick: (): Promise<unknown> => nextAnswer(),
  /** Shows the document in an editor that becomes the active one. */
  async showTextDocument(document: FakeTextDocument): Promise<FakeTextEditor> {
    const editor = new FakeTextEditor(document);
    window.activeTextEditor = editor;
    window.visibleTextEditors = [...window.visibleTextEditors, editor];
    return editor;
  },
  createStatusBarItem: () => ({ text: '', tooltip: '', show: () => undefined, hide: () => undefined, dispose: () => undefined }),
  createOutputChannel: () => fakeLog(),
};

async function nextAnswer(): Promise<unknown> {
  const answer = window.answers.shift();
  return typeof answer === 'function' ? (answer as () => unknown)() : answer;
}

let untitled = 0;

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

export enum ConfigurationTarget {
  Global = 1,
  Workspace = 2,
  WorkspaceFolder = 3,
}

/**
 * The open folder's settings (its `.vscode/settings.json`): plain keys, and language blocks such as `"[markdown]"`.
 * `refuse` makes VS Code refuse a write (an unsaved settings file, a setting no extension registers) with its message.
 */
export const folderSettings = {
  values: {} as Record<string, unknown>,
  refuse: undefined as ((key: string) => string | undefined) | undefined,
  /** Every write, in order (`language` for a write into a language block). */
  writes: [] as { key: string; value: unknown; language?: string }[],
  /** Fires after each write. */
  changed: new EventEmitter<void>(),
};

type Settings = Record<string, unknown>;

function getConfiguration(section?: string, scope?: { languageId?: string }) {
  const full = (key: string) => (section ? `${section}.${key}` : key);
  const block = scope?.languageId ? `[${scope.languageId}]` : undefined;
  const inBlock = (key: string) => (block ? (folderSettings.values[block] as Settings | undefined)?.[full(key)] : undefined);
  return {
    get: <T>(key: string): T | undefined => (inBlock(key) ?? folderSettings.values[full(key)]) as T | undefined,
    inspect: (key: string) => ({ key: full(key), workspaceValue: folderSettings.values[full(key)], workspaceLanguageValue: inBlock(key) }),
    async update(key: string, value: unknown, target: ConfigurationTarget, overrideInLanguage?: boolean): Promise<void> {
      await Promise.resolve();
      if (target !== ConfigurationTarget.Workspace) throw new Error(`fake-vscode: only folder settings are modelled, not target ${target}`);
      const refused = folderSettings.refuse?.(full(key));
      if (refused) throw new Error(refused);
      const into = overrideInLanguage && block ? ((folderSettings.values[block] ??= {}) as Settings) : folderSettings.values;
      if (value === undefined) delete into[full(key)];
      else into[full(key)] = structuredClone(value);
      if (block && Object.keys((folderSettings.values[block] as Settings | undefined) ?? { x: 1 }).length === 0) delete folderSettings.values[block];
      folderSettings.writes.push({ key: full(key), value, language: overrideInLanguage ? scope?.languageId : undefined });
      folderSettings.changed.fire();
    },
  };
}

/** Fire after changing `workspace.workspaceFolders`, as VS Code does when folders are added to or removed from the window. */
export const workspaceFoldersChanged = new EventEmitter<void>();

export const workspace = {
  workspaceFolders: undefined as { uri: Uri; name: string; index: number }[] | undefined,
  /** The most specific open folder holding the URI, as VS Code answers it. */
  getWorkspaceFolder(uri: Uri): { uri: Uri; name: string; index: number } | undefined {
    const holding = (workspace.workspaceFolders ?? []).filter(
      (f) => f.uri.scheme === uri.scheme && (uri.fsPath === f.uri.fsPath || uri.fsPath.startsWith(f.uri.fsPath + path.sep)),
    );
    return holding.sort((a, b) => b.uri.fsPath.length - a.uri.fsPath.length)[0];
  },
  /**
   * As VS Code's: refused (false) when a document changed since the call; a read-only document is edited all the
   * same (its buffer changes, though it cannot be saved).
   */
  async applyEdit(edit: WorkspaceEdit): Promise<boolean> {
    const documents = window.visibleTextEditors.map((e) => e.document);
    const targets = edit.entries.map((entry) => ({ entry, document: documents.find((d) => d.uri.toString() === entry.uri.toString()) }));
    const versions = targets.map((t) => t.document?.version);
    await rendererTurn();
    if (targets.some((t, i) => !t.document || t.document.version !== versions[i])) return false;
    for (const { entry, document } of targets) document!.apply([entry]);
    return true;
  },
  /** An untitled document, as "Run MCP Tool" opens its result. */
  async openTextDocument(options: { language?: string; content?: string }): Promise<FakeTextDocument> {
    untitled += 1;
    return new FakeTextDocument(Uri.from({ scheme: 'untitled', path: `Untitled-${untitled}` }), options.content ?? '', { languageId: options.language });
  },
  getConfiguration,
  onDidChangeWorkspaceFolders: workspaceFoldersChanged.event,
  /** After each write of a folder setting, for that setting (and the sections holding it). */
  onDidChangeConfiguration(listener: (e: { affectsConfiguration(section: string): boolean }) => void): { dispose(): void } {
    return folderSettings.changed.event(() => {
      const key = folderSettings.writes[folderSettings.writes.length - 1]?.key ?? '';
      listener({ affectsConfiguration: (section) => key === section || key.startsWith(`${section}.`) });
    });
  },
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
  folderSettings.values = {};
  folderSettings.refuse = undefined;
  folderSettings.writes = [];
  window.activeTextEditor = undefined;
  window.visibleTextEditors = [];
}

/** Opens `text` in an editor and makes it the active one (and the only visible one). */
export function showFakeEditor(uri: Uri, text: string, options: ConstructorParameters<typeof FakeTextDocument>[2] = {}): FakeTextEditor {
  const editor = new FakeTextEditor(new FakeTextDocument(uri, text, options));
  window.activeTextEditor = editor;
  window.visibleTextEditors = [editor];
  return editor;
}
