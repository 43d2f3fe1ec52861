// Reads config.json without side effects: parse, migrate in memory, validate, fall back to defaults.
import fs from 'node:fs';
import { migrateConfig } from './migrations';
import { defaultConfig, type NotesConfig } from './schema';
import { validateConfig } from './validate';

export interface ConfigLoad {
  config: NotesConfig;
  /** Why values were dropped or the file ignored; empty when the file is valid or missing. */
  problems: string[];
  /** True when the file is of an older version and was migrated in memory. */
  migrated: boolean;
}

export interface ConfigFileLoad extends ConfigLoad {
  /** The file's bytes, or undefined when it does not exist. */
  bytes?: Buffer;
  /** The migrated raw object (only when `migrated`), ready to be written back by the store. */
  migratedValue?: unknown;
  migrationNotes: string[];
}

/** Interprets the bytes of a config file. */
export function parseConfigBytes(bytes: Buffer): ConfigFileLoad {
  let raw: unknown;
  try {
    // A BOM is what some Windows editors write; JSON.parse would reject it.
    raw = JSON.parse(bytes.toString('utf8').replace(/^\uFEFF/, ''));
  } catch (err) {
    return { config: defaultConfig(), problems: [`not valid JSON: ${(err as Error).message} (defaults used)`], migrated: false, bytes, migrationNotes: [] };
  }
  const migration = migrateConfig(raw);
  const { config, problems } = validateConfig(migration.value);
  return {
    config,
    problems,
    migrated: migration.migrated,
    bytes,
    migratedValue: migration.migrated ? migration.value : undefined,
    migrationNotes: migration.notes,
  };
}

/** Reads, migrates in memory and validates `file`; never writes. A missing file gives the defaults. */
export function loadConfigFile(file: string): ConfigFileLoad {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { config: defaultConfig(), problems: [], migrated: false, migrationNotes: [] };
    return { config: defaultConfig(), problems: [`cannot read ${file}: ${(err as Error).message} (defaults used)`], migrated: false, migrationNotes: [] };
  }
  return parseConfigBytes(bytes);
}
