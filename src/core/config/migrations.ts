// The table of config file migrations (spec 9): each moves an older layout to a newer version, in memory.
import { isPlainObject } from './merge';
import {
  developmentSchema,
  editorSchema,
  filesSchema,
  performanceSchema,
  searchSchema,
  securitySchema,
  uiSchema,
  workspaceSchema,
} from './schema';
import { compareVersions, isVersion } from './versions';

type RawConfig = Record<string, unknown>;

export interface Migration {
  /** The version a file has after this migration; files older than this get it. */
  to: string;
  /** One line for the README's migrations table. */
  description: string;
  /** Rewrites the raw object (already a copy; mutate freely). Returns notes on what moved. */
  migrate(raw: RawConfig): string[];
}

/**
 * Sections whose fields once lived at the top level of the file. A name found in two sections
 * (`excludePatterns`) is listed under `LEGACY_FLAT_OVERRIDES` to say which one it meant. Read when a migration
 * runs, not as this module loads: the server loads the schema on first use (see server/lazy-modules.mjs).
 */
const flatSections = () =>
  ({
    editor: editorSchema,
    workspace: workspaceSchema,
    files: filesSchema,
    search: searchSchema,
    ui: uiSchema,
    performance: performanceSchema,
    security: securitySchema,
    development: developmentSchema,
  }) as const;

/** Flat names that exist in several sections: the desktop app's flat `excludePatterns` hid files from the tree. */
const LEGACY_FLAT_OVERRIDES: Record<string, string> = { excludePatterns: 'files' };

/** Flat key -> section, derived from the schema so that new fields are covered without editing this file. */
export function legacyFlatKeys(): Record<string, string> {
  const owners = new Map<string, string[]>();
  for (const [section, schema] of Object.entries(flatSections())) {
    for (const key of Object.keys(schema.shape)) owners.set(key, [...(owners.get(key) ?? []), section]);
  }
  const map: Record<string, string> = {};
  for (const [key, sections] of owners) {
    const section = sections.length === 1 ? sections[0] : LEGACY_FLAT_OVERRIDES[key];
    if (section) map[key] = section;
  }
  return map;
}

function moveInto(raw: RawConfig, key: string, section: string, target: string[] = [section]): string | undefined {
  if (!(key in raw)) return undefined;
  let node: RawConfig = raw;
  for (const part of target) {
    if (!isPlainObject(node[part])) node[part] = {};
    node = node[part] as RawConfig;
  }
  const value = raw[key];
  delete raw[key];
  const where = [...target, key].join('.');
  if (key in node) return `${key}: dropped, ${where} is already set`;
  node[key] = value;
  return `${key} -> ${where}`;
}

/** Known migrations, oldest first. Add a new entry at the end and raise CONFIG_VERSION to its `to`. */
export const MIGRATIONS: readonly Migration[] = [
  {
    to: '1.0.0',
    description: 'Flat settings move into their sections: a top-level `fontSize` becomes `editor.fontSize`, `sidebarWidth` becomes `ui.sidebarWidth`, `maxFileSize` becomes `security.maxFileSize`, and so on for every field of editor, workspace, files, search, ui, performance, security and development (`excludePatterns` goes to `files`). When both exist, the sectioned value wins.',
    migrate(raw) {
      const notes: string[] = [];
      for (const [key, section] of Object.entries(legacyFlatKeys())) {
        const note = moveInto(raw, key, section);
        if (note) notes.push(note);
      }
      return notes;
    },
  },
  {
    to: '1.1.0',
    description: 'Top-level `mcp` and `mail` objects move under `integrations` (`integrations.mcp`, `integrations.mail`).',
    migrate(raw) {
      const notes: string[] = [];
      for (const key of ['mcp', 'mail']) {
        if (!isPlainObject(raw[key])) continue;
        const integrations = isPlainObject(raw.integrations) ? raw.integrations : (raw.integrations = {});
        const value = raw[key];
        delete raw[key];
        if (key in integrations) notes.push(`${key}: dropped, integrations.${key} is already set`);
        else {
          (integrations as RawConfig)[key] = value;
          notes.push(`${key} -> integrations.${key}`);
        }
      }
      return notes;
    },
  },
];

export interface MigrationResult {
  value: unknown;
  /** True when at least one migration ran (the version changed). */
  migrated: boolean;
  notes: string[];
}

/** Applies every migration newer than the file's version, in memory. Non-objects pass through untouched. */
export function migrateConfig(input: unknown, migrations: readonly Migration[] = MIGRATIONS): MigrationResult {
  if (!isPlainObject(input)) return { value: input, migrated: false, notes: [] };
  const raw = structuredClone(input);
  const notes: string[] = [];
  if (raw.version !== undefined && !isVersion(raw.version)) {
    notes.push(`version ${JSON.stringify(raw.version)} is not of the form major.minor.patch: read as older than every version`);
  }
  let migrated = false;
  for (const migration of migrations) {
    if (compareVersions(raw.version, migration.to) >= 0) continue;
    const from = typeof raw.version === 'string' ? raw.version : '(none)';
    notes.push(`migrated ${from} -> ${migration.to}`, ...migration.migrate(raw).map((n) => `  ${n}`));
    raw.version = migration.to;
    migrated = true;
  }
  return { value: raw, migrated, notes };
}
