// MCP resources (spec 2.3): notes, workspace info, configuration values, theme, plugins; completion and subscriptions.
import { ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Variables } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import {
  ListResourcesRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type ListResourcesResult,
  type ReadResourceResult,
  type Resource,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { redactConfig, redactPluginSettings } from '../src/core/config/redact';
import type { NotesConfig } from '../src/core/config/schema';
import { isNotesError } from '../src/core/errors';
import { isNoteFile, textMimeType } from '../src/core/workspace/file-types';
import { watchFileContent, type Disposable } from '../src/core/workspace/watcher';
import type { NotesContext } from './tools/context';
import { firstAfter } from './tools/list-page';
import { readNoteMetadata } from './tools/note';
import { ProtocolError, ProtocolErrorCode } from './tools/protocol-error';
import { currentWorkspaceInfo } from './tools/workspace';
import { perProcessValue } from './per-process';

export const NOTE_URI_PREFIX = 'notesapp://notes/';
export const WORKSPACE_INFO_URI = 'notesapp://workspace/info';
const THEME_URI = 'notesapp://theme/current';
const CONFIG_URI_PREFIX = 'notesapp://config/';
/** resources/list pages hold at most this many notes (sorted by path); `nextCursor` leads to the rest. */
export const NOTES_PER_PAGE = 2000;

/** URIs every resource of this server has, for the error naming an unknown one. */
const RESOURCE_FORMS = `notesapp://notes/{path}, ${WORKSPACE_INFO_URI}, ${THEME_URI}, notesapp://config/{key}, notesapp://plugins/{name}`;

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What resources/read and resources/list need of one registered resource (the SDK has its own copy of each). */
interface ResourceEntry {
  /** The variables of `uri` when it is this resource; undefined when it is not. */
  match: (uri: string) => Variables | undefined;
  read: (uri: URL, variables: Variables, extra: Extra) => Promise<ReadResourceResult>;
  /** The resources it lists. */
  list?: () => Promise<Resource[]>;
}

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

/** The body of notesapp://theme/current under `config`. */
function themeBody(config: NotesConfig): Record<string, unknown> {
  const { theme, customTheme, editor } = config;
  return {
    theme,
    customTheme,
    fonts: { fontFamily: editor.fontFamily, monospaceFontFamily: editor.monospaceFontFamily, fontSize: editor.fontSize, lineHeight: editor.lineHeight },
  };
}

/** The body of notesapp://plugins/{name} under `config`. */
function pluginBody(config: NotesConfig, name: string): Record<string, unknown> {
  // No plugin host runs in this process yet: every plugin is honestly reported as not installed.
  const settings = redactPluginSettings(config.plugins.settings);
  return {
    name,
    installed: false,
    enabled: config.plugins.enabled.includes(name),
    status: 'not installed',
    // Its own entry only: a plugin named `constructor` or `toString` is not the object's inherited method.
    settings: Object.hasOwn(settings, name) ? settings[name] : {},
  };
}

/** The settings notesapp://workspace/info shows besides the note count and size. */
function workspaceSettings(config: NotesConfig): Record<string, unknown> {
  return { workspace: config.workspace, files: config.files, search: config.search };
}

/** The body of notesapp://workspace/info. */
async function workspaceInfoBody(ctx: NotesContext): Promise<Record<string, unknown>> {
  return { ...(await currentWorkspaceInfo(ctx)), settings: workspaceSettings(ctx.config) };
}

/** The -32002 answer to a configuration key that does not exist. */
function unknownConfigKey(ctx: NotesContext, key: string, uri: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.resourceNotFound, `Resource not found: ${uri}. Unknown configuration key "${key}"; top-level keys: ${Object.keys(ctx.config).join(', ')}.`, { uri });
}

/**
 * Dotted keys for completion; it stops at plugins.settings.<plugin>, below which every value is redacted anyway.
 * A plugin name may itself hold dots (`acme.sync`): the depth is counted in keys, not in dots.
 */
function configKeys(value: unknown, parts: string[] = []): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  if (parts.length === 3 && parts[0] === 'plugins' && parts[1] === 'settings') return [];
  return Object.entries(value).flatMap(([k, v]) => {
    const path = [...parts, k];
    return [path.join('.'), ...configKeys(v, path)];
  });
}

/**
 * The value at a dotted key. A key whose name holds dots (a plugin named `acme.sync`) is found too: at each level
 * the shortest key that the rest of the dotted key starts with, and that leads to a value, is taken. The keys that
 * exist are tried, not the ways to cut the dotted key, so a key of 30 000 dots costs what one of three does.
 */
function lookup(config: Record<string, unknown>, key: string): { found: boolean; value: unknown } {
  const walk = (current: unknown, rest: string): { found: boolean; value: unknown } => {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return { found: false, value: undefined };
    const names = Object.keys(current).sort((a, b) => a.length - b.length);
    for (const name of names) {
      if (rest === name) return { found: true, value: (current as Record<string, unknown>)[name] };
      if (rest.length > name.length && rest.startsWith(name) && rest[name.length] === '.') {
        const found = walk((current as Record<string, unknown>)[name], rest.slice(name.length + 1));
        if (found.found) return found;
      }
    }
    return { found: false, value: undefined };
  };
  return walk(config, key);
}

/**
 * Every note path matching `value`, prefix matches first. All of them: the SDK sends the first 100 and reports how
 * many there are (`total`, `hasMore`), which it could not if the list were cut here.
 */
export async function completeNotePath(ctx: NotesContext, value: string): Promise<string[]> {
  const needle = value.toLowerCase();
  const notes = await ctx.listNotes();
  const starts: string[] = [];
  const contains: string[] = [];
  for (const note of notes) {
    const lower = note.toLowerCase();
    if (lower.startsWith(needle)) starts.push(note);
    else if (lower.includes(needle)) contains.push(note);
  }
  for (const note of contains) starts.push(note);
  return starts;
}

/** Sorted once per configuration read (resources/list asks for them at each of its pages). */
const pluginNamesOf = new WeakMap<object, string[]>();

function pluginNames(ctx: NotesContext): string[] {
  const { plugins } = ctx.config;
  let names = pluginNamesOf.get(plugins);
  // An empty name in plugins.enabled names no plugin (notesapp://plugins/ is no resource): not listed or offered.
  if (!names) pluginNamesOf.set(plugins, (names = [...new Set([...plugins.enabled, ...Object.keys(plugins.settings)])].filter((n) => n !== '').sort()));
  return names;
}

function noteResource(relative: string): Resource {
  return { uri: noteUri(relative), name: relative, title: path.posix.basename(relative), mimeType: 'text/markdown' };
}

export function registerResources(ctx: NotesContext): Disposable {
  const { server } = ctx;
  const entries: ResourceEntry[] = [];
  /** Registers a resource with a fixed URI with the SDK (for its metadata) and with our read and list. */
  const fixed = (name: string, uri: string, metadata: { title: string; description: string; mimeType: string }, read: (uri: URL) => Promise<ReadResourceResult>) => {
    server.registerResource(name, uri, metadata, read);
    entries.push({ match: (u) => (u === uri ? {} : undefined), read: (u) => read(u), list: async () => [{ uri, name, ...metadata }] });
  };
  /** Registers a resource template with the SDK (templates/list, completion) and with our read. */
  const templated = (
    name: string,
    template: ResourceTemplate,
    metadata: { title: string; description: string; mimeType: string },
    read: (uri: URL, variables: Variables, extra: Extra) => Promise<ReadResourceResult>,
    list?: () => Promise<Resource[]>,
  ) => {
    server.registerResource(name, template, metadata, read);
    entries.push({ match: (u) => template.uriTemplate.match(u) ?? undefined, read, list: list && (async () => (await list()).map((r) => ({ ...metadata, ...r }))) });
  };

  templated(
    'note',
    new ResourceTemplate(`${NOTE_URI_PREFIX}{+path}`, {
      // Listed by the paged resources/list below, not by the SDK's, which would list every note in one reply.
      list: undefined,
      complete: { path: (value) => completeNotePath(ctx, value) },
    }),
    {
      title: 'Note',
      description:
        'A note: contents[0] is its markdown text (text/markdown), contents[1] its metadata as JSON (the get_note_metadata record). {path} is workspace-relative; "/" stays as is, other special characters are percent-encoded.',
      mimeType: 'text/markdown',
    },
    async (uri, variables, extra) => {
      const raw = Array.isArray(variables.path) ? variables.path.join('/') : String(variables.path);
      // A listed note's `%` is written `%25`: a `%` starting no escape is a malformed URI, as for the other resources.
      const relative = decodePart(raw, uri.href);
      try {
        const { metadata, text } = await readNoteMetadata(ctx, relative, extra.signal);
        return {
          contents: [
            { uri: uri.href, mimeType: textMimeType(metadata.path, ctx.config.files.fileExtension), text },
            { uri: uri.href, mimeType: 'application/json', text: JSON.stringify(metadata, null, 2) },
          ],
        };
      } catch (err) {
        asResourceError(err, uri.href);
      }
    },
  );

  fixed(
    'workspace-info',
    WORKSPACE_INFO_URI,
    { title: 'Workspace info', description: 'The workspace record {path, name, noteCount, size} and the workspace-related settings.', mimeType: 'application/json' },
    async (uri) => json(uri.href, await workspaceInfoBody(ctx)),
  );

  templated(
    'config',
    new ResourceTemplate('notesapp://config/{key}', {
      list: undefined,
      // Every match: the SDK sends the first 100 with the real `total` and `hasMore`.
      complete: { key: (value) => configKeys(redactedConfig(ctx)).filter((k) => k.startsWith(value)) },
    }),
    {
      title: 'Configuration value',
      description: 'A configuration value by dotted key, e.g. editor.fontSize or integrations.mcp.tools; every plugin setting value and any secret-named value (apiKey, tokens, passwords) is redacted. Body: {key, value}.',
      mimeType: 'application/json',
    },
    async (uri, variables) => {
      const key = decodePart(String(variables.key), uri.href);
      const { found, value } = lookup(redactedConfig(ctx), key);
      if (!found) throw unknownConfigKey(ctx, key, uri.href);
      return json(uri.href, { key, value });
    },
    async () => Object.keys(ctx.config).map((k) => ({ uri: `notesapp://config/${k}`, name: `config ${k}`, mimeType: 'application/json' })),
  );

  fixed(
    'theme',
    THEME_URI,
    { title: 'Current theme', description: 'The theme setting (light, dark, system or custom), the custom theme colors, and the editor fonts.', mimeType: 'application/json' },
    async (uri) => json(uri.href, themeBody(ctx.config)),
  );

  templated(
    'plugin',
    new ResourceTemplate('notesapp://plugins/{name}', {
      list: undefined,
      complete: { name: (value) => pluginNames(ctx).filter((n) => n.startsWith(value)) },
    }),
    {
      title: 'Plugin',
      description: 'Plugin metadata and status: {name, installed, enabled, status, settings}. Setting values are redacted (they may hold secrets); their names are shown.',
      mimeType: 'application/json',
    },
    async (uri, variables) => json(uri.href, pluginBody(ctx.config, decodePart(String(variables.name), uri.href))),
    async () => pluginNames(ctx).map((n) => ({ uri: `notesapp://plugins/${encodeURIComponent(n)}`, name: `plugin ${n}`, mimeType: 'application/json' })),
  );

  registerReadAndList(ctx, entries);
  return registerSubscriptions(ctx);
}

/** Position of a page of the resources other than notes: this, then the index of the first; no note path starts with `/`. */
const OTHERS_CURSOR = '/resources/';

function otherCursor(position: string): number | undefined {
  if (!position.startsWith(OTHERS_CURSOR)) return undefined;
  const at = position.slice(OTHERS_CURSOR.length);
  return /^(0|[1-9][0-9]{0,8})$/.test(at) ? Number(at) : undefined;
}

/** Signs the cursors this process issues, so that one it did not issue is told apart (see readCursor). */
const CURSOR_KEY = perProcessValue(() => randomBytes(32));

function cursorMac(body: string): string {
  return createHmac('sha256', CURSOR_KEY.get()).update(body).digest('base64url').slice(0, 22);
}

/** The opaque cursor for a position in the list (a note path, or an OTHERS_CURSOR position): it, encoded, and its signature. */
function issueCursor(position: string): string {
  const body = Buffer.from(position, 'utf8').toString('base64url');
  return `${body}.${cursorMac(body)}`;
}

/**
 * The position a cursor of issueCursor's stands for. Any other string (made up, altered, or from another run of the
 * server) is MCP's "invalid cursor", error -32602: read as a position it would restart the list or skip a part of it.
 */
function readCursor(cursor: string): string {
  const dot = cursor.lastIndexOf('.');
  if (dot > 0 && cursor.slice(dot + 1) === cursorMac(cursor.slice(0, dot))) return Buffer.from(cursor.slice(0, dot), 'base64url').toString('utf8');
  const shown = cursor.length > 100 ? `${cursor.slice(0, 100)}…` : cursor;
  const details = `Invalid cursor "${shown}": it is not a nextCursor this server gave. List from the first page (no cursor), then pass each page's nextCursor as it is.`;
  throw new ProtocolError(ProtocolErrorCode.invalidParams, details);
}

/**
 * resources/read and resources/list in place of the SDK's (set when the first resource was registered): a URI
 * that is none of our resources answers MCP's -32002 "Resource not found" (the SDK answers -32602), and the list
 * comes in pages, the other resources first and then the notes, NOTES_PER_PAGE at a time, each page's
 * `nextCursor` standing for the path of its last note (the SDK's lists everything in one reply, which for 50 000
 * notes is megabytes). A note created or deleted between pages neither shifts nor repeats the others. Other
 * resources beyond a page come first, a page at a time, with cursors of their own (OTHERS_CURSOR). Cursors are
 * signed (issueCursor): one the server did not give answers -32602.
 */
function registerReadAndList(ctx: NotesContext, entries: ResourceEntry[]): void {
  const { server } = ctx;
  const othersOf = new WeakMap<object, Resource[]>();
  server.server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    const uri = new URL(request.params.uri);
    const href = uri.toString();
    for (const entry of entries) {
      const variables = entry.match(href);
      if (variables) return entry.read(uri, variables, extra);
    }
    throw new ProtocolError(ProtocolErrorCode.resourceNotFound, `Resource not found: ${href}. This server's resources: ${RESOURCE_FORMS}.`, { uri: href });
  });
  server.server.setRequestHandler(ListResourcesRequestSchema, async (request): Promise<ListResourcesResult> => {
    const cursor = request.params?.cursor;
    const position = cursor === undefined ? undefined : readCursor(cursor);
    const fromOther = position === undefined ? 0 : otherCursor(position);
    const resources: Resource[] = [];
    if (fromOther !== undefined) {
      // They follow from the configuration alone: made once per configuration read.
      let others = othersOf.get(ctx.config);
      if (!others) {
        others = [];
        // One by one, not push(...): a configuration may name any number of plugins.
        for (const entry of entries) if (entry.list) for (const resource of await entry.list()) others.push(resource);
        othersOf.set(ctx.config, others);
      }
      // More than a page of them (tens of thousands of plugins named): they come a page at a time first.
      if (others.length - fromOther > NOTES_PER_PAGE) {
        const end = fromOther + NOTES_PER_PAGE;
        return { resources: others.slice(fromOther, end), nextCursor: issueCursor(`${OTHERS_CURSOR}${end}`) };
      }
      for (let i = fromOther; i < others.length; i++) resources.push(others[i]);
    }
    const notes = await ctx.listNotes();
    const start = fromOther !== undefined ? 0 : firstAfter(notes, position as string);
    const end = Math.min(notes.length, start + NOTES_PER_PAGE);
    for (let i = start; i < end; i++) resources.push(noteResource(notes[i]));
    return end < notes.length ? { resources, nextCursor: issueCursor(notes[end - 1]) } : { resources };
  });
}

const PLUGIN_URI = /^notesapp:\/\/plugins\/([^/]+)$/;

/** Resources besides notes that can be subscribed to (they change with the note set or the configuration). */
function isFixedResource(uri: string): boolean {
  return uri === WORKSPACE_INFO_URI || uri === THEME_URI || PLUGIN_URI.test(uri);
}

/**
 * What a read of a subscribed configuration, theme or plugin URI gives under `config`, as a string to compare;
 * undefined for the other URIs (notes and workspace/info change with the files too: see registerSubscriptions).
 */
function configBodyOf(uri: string, config: NotesConfig): string | undefined {
  if (uri === THEME_URI) return JSON.stringify(themeBody(config));
  const plugin = PLUGIN_URI.exec(uri);
  if (plugin) return JSON.stringify(pluginBody(config, decodePart(plugin[1], uri)));
  if (uri.startsWith(CONFIG_URI_PREFIX)) return JSON.stringify(lookup(redactConfig(config), decodePart(uri.slice(CONFIG_URI_PREFIX.length), uri)));
  return undefined;
}

/** What resources/list gives besides the notes under `config`: the configuration sections and the plugins. */
function listedOthers(config: NotesConfig): string {
  return JSON.stringify([Object.keys(config), [...new Set([...config.plugins.enabled, ...Object.keys(config.plugins.settings)])].sort()]);
}

/**
 * A subscribed URI: `uri` as the client first spelled it (notifications name it so); `ready`, when set, settles once
 * the subscription is in force (a note's watcher started) or refused.
 */
interface Subscription extends Disposable {
  uri: string;
  ready?: Promise<void>;
}

/**
 * The one key of every spelling of a resource URI: the scheme's case, escapes (`Garden%20Plan.md` and
 * `Garden Plan.md`) and, for a note, `.` and `..` segments (`a/../Inbox.md`) do not make another subscription, so
 * one unsubscribe ends what any spelling began. A malformed escape is the client's error (-32602), as in a read.
 */
function subscriptionKey(uri: string): string {
  let href: string;
  try {
    href = new URL(uri).href;
  } catch {
    return uri; // refused by the request's schema before it comes here
  }
  if (href.startsWith(NOTE_URI_PREFIX)) return NOTE_URI_PREFIX + path.posix.normalize(decodePart(href.slice(NOTE_URI_PREFIX.length), uri));
  if (href.startsWith(CONFIG_URI_PREFIX)) return CONFIG_URI_PREFIX + encodeURIComponent(decodePart(href.slice(CONFIG_URI_PREFIX.length), uri));
  const plugin = PLUGIN_URI.exec(href);
  if (plugin) return `notesapp://plugins/${encodeURIComponent(decodePart(plugin[1], uri))}`;
  return href;
}

/** resources/subscribe on a note watches the file; the note set is watched for list_changed. */
function registerSubscriptions(ctx: NotesContext): Disposable {
  const { server } = ctx;
  server.server.registerCapabilities({ resources: { subscribe: true, listChanged: true } });
  const subscriptions = new Map<string, Subscription>();
  let snapshot: string | undefined;
  /** Whether the first snapshot of the note set is taken, or being taken: until then, snapshot may stay unset. */
  let ready = false;
  let closed = false;

  /**
   * What a read of notesapp://workspace/info gave when last compared, while it is subscribed to (its note count and
   * size change with any note's edit, not only with the note set): taken when it is subscribed to, then at each check.
   */
  let infoBody: string | undefined;
  const infoNow = async () => JSON.stringify(await workspaceInfoBody(ctx));

  /**
   * `force`: the list changed for sure (a tool of ours created or deleted a file, even if the snapshot was late; the
   * configuration named other plugins). `infoChanged`: the settings notesapp://workspace/info shows changed. One
   * list_changed, and one updated for workspace/info when its read gives something else, however many reasons
   * there are.
   */
  const checkNoteSet = async (force: boolean, infoChanged = false) => {
    // Until the first snapshot is taken (see oninitialized), only a change known for sure is announced.
    if (!ready && !force && !infoChanged) return;
    try {
      const current = (await ctx.listNotes(true)).join('\n');
      const listChanged = force || (snapshot !== undefined && current !== snapshot);
      const info = subscriptions.has(WORKSPACE_INFO_URI) ? await infoNow() : undefined;
      if (server.isConnected()) {
        if (listChanged) await server.server.sendResourceListChanged();
        const subscribed = subscriptions.get(WORKSPACE_INFO_URI);
        if (info !== undefined && info !== infoBody && subscribed) await server.server.sendResourceUpdated({ uri: subscribed.uri });
      }
      if (info !== undefined && subscriptions.has(WORKSPACE_INFO_URI)) infoBody = info;
      snapshot = current;
    } catch (err) {
      ctx.deps.log('warn', `checking the note list failed: ${(err as Error).message}`);
    }
  };
  let pending: NodeJS.Timeout | undefined;
  let forced = false;
  let infoForced = false;
  const scheduleCheck = (force: boolean, infoChanged = false) => {
    forced ||= force;
    infoForced ||= infoChanged;
    clearTimeout(pending);
    pending = setTimeout(() => {
      const f = forced;
      const i = infoForced;
      forced = false;
      infoForced = false;
      void checkNoteSet(f, i);
    }, 100);
    pending.unref();
  };
  ctx.onNotesChanged(() => scheduleCheck(true));
  // Changes other programs make, seen by the workspace index's watchers (see oninitialized below for when they count).
  ctx.onFilesChanged(() => !closed && scheduleCheck(false));
  // An edit changes no list, but the size workspace/info shows.
  ctx.onFilesTouched(() => !closed && subscriptions.has(WORKSPACE_INFO_URI) && scheduleCheck(false));
  // A changed config file: each subscribed configuration, theme or plugin URI whose value changed gets `updated`
  // at once; the note set (files.excludePatterns and the like decide it), the other resources listed and
  // workspace/info are checked as for a change of the files, giving at most one list_changed and one updated.
  ctx.onConfigChanged((next, previous) => {
    if (server.isConnected()) {
      for (const [key, { uri }] of subscriptions) {
        const before = configBodyOf(key, previous);
        if (before !== undefined && before !== configBodyOf(key, next)) void server.server.sendResourceUpdated({ uri });
      }
    }
    const othersChanged = listedOthers(previous) !== listedOthers(next);
    const infoChanged = JSON.stringify(workspaceSettings(previous)) !== JSON.stringify(workspaceSettings(next));
    if (othersChanged || infoChanged) scheduleCheck(othersChanged, infoChanged);
  });
  // The first listing and the workspace index's folder watchers start after the handshake, never delaying it.
  let initialized = false;
  const previousOnInitialized = server.server.oninitialized;
  server.server.oninitialized = () => {
    previousOnInitialized?.();
    // A client that sends notifications/initialized again starts nothing again (nor announces the list again).
    if (initialized) return;
    initialized = true;
    void ctx.workspaceIndex().then(async (index) => {
      if (!index) {
        ready = true;
        return checkNoteSet(false);
      }
      // The first snapshot is the list the first answers were made from, turned into a string only once they are out
      // (that takes tens of milliseconds with 50 000 files): list_changed follows when the list differs from it by
      // then, not merely because the index looked at a folder again (one changed less than 3 s before the start is).
      await index.listing();
      const listed = index.listed() ? [...index.listFiles()] : undefined; // a copy: the index's list changes in place
      await index.answered();
      if (closed) return;
      ready = true;
      if (listed && snapshot === undefined) snapshot = listed.filter((f) => isNoteFile(f, ctx.config.files.fileExtension)).join('\n');
      await checkNoteSet(false);
    }).catch((err: Error) => {
      // The index could not be made (see NotesContext.backgroundFailed): no snapshot to compare with, so the list is
      // checked as when there is no index.
      ctx.deps.log('warn', `listing the notes for resources/list_changed failed: ${err.message}`);
      ready = true;
      return checkNoteSet(false);
    });
  };

  server.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    const uri = request.params.uri;
    const key = subscriptionKey(uri);
    const existing = subscriptions.get(key);
    if (existing) {
      // Subscribed already, or being subscribed by a request still checking the URI: this one answers as it does.
      await existing.ready;
      return {};
    }
    if (key.startsWith(NOTE_URI_PREFIX)) {
      // In the map before the path is checked: a second subscribe meanwhile starts no second watcher (which no
      // unsubscribe would stop), and an unsubscribe meanwhile is not undone when the check ends.
      let watcher: Disposable | undefined;
      let unsubscribed = false;
      const entry: Subscription = {
        uri,
        dispose: () => {
          unsubscribed = true;
          watcher?.dispose();
        },
      };
      entry.ready = (async () => {
        let absolute: string;
        try {
          absolute = (await (await ctx.guard()).resolve(key.slice(NOTE_URI_PREFIX.length))).absolute;
        } catch (err) {
          if (isNotesError(err)) throw new ProtocolError(ProtocolErrorCode.invalidParams, err.message, { uri });
          throw new ProtocolError(ProtocolErrorCode.invalidParams, `Cannot subscribe to ${uri}: ${(err as Error).message}`, { uri });
        }
        // A note that does not exist yet can be subscribed to (its creation is a change); a folder is no note.
        if ((await fs.promises.stat(absolute).catch(() => undefined))?.isDirectory()) {
          throw new ProtocolError(ProtocolErrorCode.invalidParams, `Cannot subscribe to ${uri}: "${key.slice(NOTE_URI_PREFIX.length)}" is a folder, not a note.`, { uri });
        }
        if (unsubscribed) return;
        watcher = watchFileContent(absolute, () => {
          if (server.isConnected()) void server.server.sendResourceUpdated({ uri });
        });
      })();
      subscriptions.set(key, entry);
      try {
        await entry.ready;
      } catch (err) {
        if (subscriptions.get(key) === entry) subscriptions.delete(key);
        throw err;
      }
    } else if (key.startsWith(CONFIG_URI_PREFIX)) {
      // A configuration value that does not exist is not a resource (the same answer a read of it gets).
      const name = decodePart(key.slice(CONFIG_URI_PREFIX.length), uri);
      if (!lookup(redactedConfig(ctx), name).found) throw unknownConfigKey(ctx, name, uri);
      subscriptions.set(key, { uri, dispose: () => undefined });
    } else if (key === WORKSPACE_INFO_URI) {
      const entry: Subscription = { uri, dispose: () => (infoBody = undefined) };
      subscriptions.set(key, entry);
      // What later reads are compared with (a check that ran meanwhile took a newer one, and told the client).
      try {
        const body = await infoNow();
        if (subscriptions.get(key) === entry) infoBody ??= body;
      } catch {
        // None to compare with: the next check tells the client.
      }
    } else if (isFixedResource(key)) {
      // Watched through the configuration (theme, plugins, workspace/info's settings) and the note set
      // (workspace/info): see onConfigChanged and checkNoteSet above. A plugin name was decoded by subscriptionKey.
      subscriptions.set(key, { uri, dispose: () => undefined });
    } else {
      throw new ProtocolError(
        ProtocolErrorCode.resourceNotFound,
        `Resource not found: ${uri}. Subscribable: ${RESOURCE_FORMS}.`,
        { uri },
      );
    }
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    // Any spelling of a subscribed URI ends it; one with a malformed escape is refused (subscriptionKey).
    const key = subscriptionKey(request.params.uri);
    subscriptions.get(key)?.dispose();
    subscriptions.delete(key);
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
