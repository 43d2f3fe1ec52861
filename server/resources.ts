// MCP resources (spec 2.3): notes, workspace info, configuration values, theme, plugins; completion and subscriptions.
import { ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SubscribeRequestSchema, UnsubscribeRequestSchema, type ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import path from 'node:path';
import { redactConfig, redactPluginSettings } from '../src/core/config/redact';
import { isNotesError } from '../src/core/errors';
import { watchFileContent, type Disposable } from '../src/core/workspace/watcher';
import type { NotesContext } from './tools/context';
import { readNoteMetadata } from './tools/note';
import { ProtocolError, ProtocolErrorCode } from './tools/protocol-error';
import { currentWorkspaceInfo } from './tools/workspace';

export const NOTE_URI_PREFIX = 'notesapp://notes/';
export const WORKSPACE_INFO_URI = 'notesapp://workspace/info';
const THEME_URI = 'notesapp://theme/current';
const COMPLETION_LIMIT = 100;
/** resources/list names at most this many notes (sorted by path); completion and list_files reach the rest. */
export const MAX_LISTED_NOTES = 2000;

export function noteUri(relative: string): string {
  return NOTE_URI_PREFIX + relative.split('/').map(encodeURIComponent).join('/');
}

/** A percent-encoded part of a resource URI, decoded; a malformed escape (`%ZZ`) is the client's error. */
function decodePart(raw: string, uri: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new ProtocolError(ProtocolErrorCode.invalidParams, `Invalid resource URI ${uri}: "${raw}" holds a malformed percent-escape.`, { uri });
  }
}

function json(uri: string, value: unknown): ReadResourceResult {
  return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(value, null, 2) }] };
}

/** Resource reads answer JSON-RPC errors; domain errors keep their message. */
function asResourceError(err: unknown, uri: string): never {
  if (isNotesError(err, 'NOT_FOUND')) throw new ProtocolError(ProtocolErrorCode.resourceNotFound, `Resource not found: ${uri}. ${err.message}`, { uri });
  if (isNotesError(err)) throw new ProtocolError(ProtocolErrorCode.invalidParams, err.message, { uri });
  throw err;
}

function redactedConfig(ctx: NotesContext): Record<string, unknown> {
  return redactConfig(ctx.config);
}

/** Dotted keys for completion; it stops at plugins.settings.<plugin>, below which every value is redacted anyway. */
function configKeys(value: unknown, prefix = ''): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  if (/^plugins\.settings\.[^.]+$/.test(prefix)) return [];
  return Object.entries(value).flatMap(([k, v]) => {
    const key = prefix ? `${prefix}.${k}` : k;
    return [key, ...configKeys(v, key)];
  });
}

function lookup(config: Record<string, unknown>, key: string): { found: boolean; value: unknown } {
  let current: unknown = config;
  for (const part of key.split('.')) {
    if (current === null || typeof current !== 'object' || Array.isArray(current) || !Object.hasOwn(current, part)) return { found: false, value: undefined };
    current = (current as Record<string, unknown>)[part];
  }
  return { found: true, value: current };
}

export async function completeNotePath(ctx: NotesContext, value: string): Promise<string[]> {
  const needle = value.toLowerCase();
  const notes = await ctx.listNotes();
  const starts = notes.filter((n) => n.toLowerCase().startsWith(needle));
  const contains = notes.filter((n) => !n.toLowerCase().startsWith(needle) && n.toLowerCase().includes(needle));
  return [...starts, ...contains].slice(0, COMPLETION_LIMIT);
}

function pluginNames(ctx: NotesContext): string[] {
  return [...new Set([...ctx.config.plugins.enabled, ...Object.keys(ctx.config.plugins.settings)])].sort();
}

export function registerResources(ctx: NotesContext): Disposable {
  const { server } = ctx;

  server.registerResource(
    'note',
    new ResourceTemplate(`${NOTE_URI_PREFIX}{+path}`, {
      // Capped so that resources/list stays far below the payload limit on very large workspaces.
      list: async () => ({
        resources: (await ctx.listNotes())
          .slice(0, MAX_LISTED_NOTES)
          .map((p) => ({ uri: noteUri(p), name: p, title: path.posix.basename(p), mimeType: 'text/markdown' })),
      }),
      complete: { path: (value) => completeNotePath(ctx, value) },
    }),
    {
      title: 'Note',
      description:
        'A note: contents[0] is its markdown text (text/markdown), contents[1] its metadata as JSON (the get_note_metadata record). {path} is workspace-relative; "/" stays as is, other special characters are percent-encoded.',
      mimeType: 'text/markdown',
    },
    async (uri, variables) => {
      const raw = Array.isArray(variables.path) ? variables.path.join('/') : String(variables.path);
      let relative: string;
      try {
        relative = decodeURIComponent(raw);
      } catch {
        relative = raw;
      }
      try {
        const { metadata, text } = await readNoteMetadata(ctx, relative);
        return {
          contents: [
            { uri: uri.href, mimeType: 'text/markdown', text },
            { uri: uri.href, mimeType: 'application/json', text: JSON.stringify(metadata, null, 2) },
          ],
        };
      } catch (err) {
        asResourceError(err, uri.href);
      }
    },
  );

  server.registerResource(
    'workspace-info',
    WORKSPACE_INFO_URI,
    { title: 'Workspace info', description: 'The workspace record {path, name, noteCount, size} and the workspace-related settings.', mimeType: 'application/json' },
    async (uri) =>
      json(uri.href, {
        ...(await currentWorkspaceInfo(ctx)),
        settings: { workspace: ctx.config.workspace, files: ctx.config.files, search: ctx.config.search },
      }),
  );

  server.registerResource(
    'config',
    new ResourceTemplate('notesapp://config/{key}', {
      list: async () => ({
        resources: Object.keys(ctx.config).map((k) => ({ uri: `notesapp://config/${k}`, name: `config ${k}`, mimeType: 'application/json' })),
      }),
      complete: {
        key: (value) =>
          configKeys(redactedConfig(ctx))
            .filter((k) => k.startsWith(value))
            .slice(0, COMPLETION_LIMIT),
      },
    }),
    {
      title: 'Configuration value',
      description: 'A configuration value by dotted key, e.g. editor.fontSize or integrations.mcp.tools; every plugin setting value and any secret-named value (apiKey, tokens, passwords) is redacted. Body: {key, value}.',
      mimeType: 'application/json',
    },
    async (uri, variables) => {
      const key = decodePart(String(variables.key), uri.href);
      const { found, value } = lookup(redactedConfig(ctx), key);
      if (!found) {
        throw new ProtocolError(ProtocolErrorCode.invalidParams, `Unknown configuration key "${key}". Top-level keys: ${Object.keys(ctx.config).join(', ')}.`, { uri: uri.href });
      }
      return json(uri.href, { key, value });
    },
  );

  server.registerResource(
    'theme',
    THEME_URI,
    { title: 'Current theme', description: 'The theme setting (light, dark, system or custom), the custom theme colors, and the editor fonts.', mimeType: 'application/json' },
    async (uri) => {
      const { theme, customTheme, editor } = ctx.config;
      return json(uri.href, {
        theme,
        customTheme,
        fonts: { fontFamily: editor.fontFamily, monospaceFontFamily: editor.monospaceFontFamily, fontSize: editor.fontSize, lineHeight: editor.lineHeight },
      });
    },
  );

  server.registerResource(
    'plugin',
    new ResourceTemplate('notesapp://plugins/{name}', {
      list: async () => ({ resources: pluginNames(ctx).map((n) => ({ uri: `notesapp://plugins/${encodeURIComponent(n)}`, name: `plugin ${n}`, mimeType: 'application/json' })) }),
      complete: { name: (value) => pluginNames(ctx).filter((n) => n.startsWith(value)) },
    }),
    {
      title: 'Plugin',
      description: 'Plugin metadata and status: {name, installed, enabled, status, settings}. Setting values are redacted (they may hold secrets); their names are shown.',
      mimeType: 'application/json',
    },
    async (uri, variables) => {
      const name = decodePart(String(variables.name), uri.href);
      // No plugin host runs in this process yet: every plugin is honestly reported as not installed.
      return json(uri.href, {
        name,
        installed: false,
        enabled: ctx.config.plugins.enabled.includes(name),
        status: 'not installed',
        settings: redactPluginSettings(ctx.config.plugins.settings)[name] ?? {},
      });
    },
  );

  return registerSubscriptions(ctx);
}

/** Resources besides notes that can be subscribed to (they change with the note set or a restart). */
function isFixedResource(uri: string): boolean {
  return uri === WORKSPACE_INFO_URI || uri === THEME_URI || /^notesapp:\/\/(config|plugins)\/[^/]+$/.test(uri);
}

/** resources/subscribe on a note watches the file; the note set is watched for list_changed. */
function registerSubscriptions(ctx: NotesContext): Disposable {
  const { server } = ctx;
  server.server.registerCapabilities({ resources: { subscribe: true, listChanged: true } });
  const subscriptions = new Map<string, Disposable>();
  let snapshot: string | undefined;

  /** `force`: a tool of ours created or deleted a file, so the set changed even if the snapshot was late. */
  const checkNoteSet = async (force: boolean) => {
    try {
      const current = (await ctx.listNotes(true)).join('\n');
      if ((force || (snapshot !== undefined && current !== snapshot)) && server.isConnected()) {
        await server.server.sendResourceListChanged();
        if (subscriptions.has(WORKSPACE_INFO_URI)) await server.server.sendResourceUpdated({ uri: WORKSPACE_INFO_URI });
      }
      snapshot = current;
    } catch (err) {
      ctx.deps.log('warn', `checking the note list failed: ${(err as Error).message}`);
    }
  };
  let pending: NodeJS.Timeout | undefined;
  let forced = false;
  const scheduleCheck = (force: boolean) => {
    forced ||= force;
    clearTimeout(pending);
    pending = setTimeout(() => {
      const f = forced;
      forced = false;
      void checkNoteSet(f);
    }, 100);
    pending.unref();
  };
  ctx.onNotesChanged(() => scheduleCheck(true));
  // The first listing and the workspace index's folder watchers start after the handshake, never delaying it.
  let closed = false;
  const previousOnInitialized = server.server.oninitialized;
  server.server.oninitialized = () => {
    previousOnInitialized?.();
    void ctx.workspaceIndex().then(async (index) => {
      index?.onFilesChanged(() => !closed && scheduleCheck(false));
      if (!index) return checkNoteSet(false);
      // The first snapshot waits for the first answers (taking it costs tens of milliseconds with 50 000 files); a
      // change to the list meanwhile, which a client may have seen half of, is announced.
      await index.listing();
      const version = index.version;
      await index.answered();
      if (!closed) await checkNoteSet(index.version !== version);
    });
  };

  server.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    const uri = request.params.uri;
    if (subscriptions.has(uri)) return {};
    if (uri.startsWith(NOTE_URI_PREFIX)) {
      let absolute: string;
      try {
        const relative = decodeURIComponent(new URL(uri).href.slice(NOTE_URI_PREFIX.length));
        absolute = (await (await ctx.guard()).resolve(relative)).absolute;
      } catch (err) {
        if (isNotesError(err)) throw new ProtocolError(ProtocolErrorCode.invalidParams, err.message, { uri });
        throw new ProtocolError(ProtocolErrorCode.invalidParams, `Cannot subscribe to ${uri}: ${(err as Error).message}`, { uri });
      }
      subscriptions.set(
        uri,
        watchFileContent(absolute, () => {
          if (server.isConnected()) void server.server.sendResourceUpdated({ uri });
        }),
      );
    } else if (isFixedResource(uri)) {
      // Other resources change only with the note set (workspace/info) or with a restart (configuration).
      subscriptions.set(uri, { dispose: () => undefined });
    } else {
      throw new ProtocolError(
        ProtocolErrorCode.resourceNotFound,
        `Resource not found: ${uri}. Subscribable: notesapp://notes/{path}, ${WORKSPACE_INFO_URI}, ${THEME_URI}, notesapp://config/{key}, notesapp://plugins/{name}.`,
        { uri },
      );
    }
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    subscriptions.get(request.params.uri)?.dispose();
    subscriptions.delete(request.params.uri);
    return {};
  });

  return {
    dispose: () => {
      clearTimeout(pending);
      closed = true;
      for (const s of subscriptions.values()) s.dispose();
      subscriptions.clear();
    },
  };
}
