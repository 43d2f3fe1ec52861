// Validation with field-level recovery: invalid fields fall back to their defaults, valid ones are kept.
import type { z } from 'zod';
import { isPlainObject } from './merge';
import { configSchema, defaultConfig, type NotesConfig } from './schema';

export interface ValidationResult {
  config: NotesConfig;
  /** One line per field that was dropped, e.g. `editor.fontSize: Too big: expected number to be <=32 (default used)`. */
  problems: string[];
}

function describePath(path: readonly PropertyKey[]): string {
  return path.length ? path.map(String).join('.') : '(root)';
}

/**
 * Removes the value at `path`. Array items are not removed one by one: the whole array goes (an array
 * with a bad item is defaulted as a whole, so that positions never shift silently). When nothing is
 * there (a required field is missing) the parent object goes instead. Returns false when the root
 * itself would have to go.
 */
function removeAt(root: Record<string, unknown>, path: readonly PropertyKey[]): boolean {
  const arrayAt = path.findIndex((p) => typeof p === 'number');
  let target = arrayAt >= 0 ? path.slice(0, arrayAt) : [...path];
  for (;;) {
    if (target.length === 0) return false;
    const parent = target.slice(0, -1).reduce<unknown>((node, key) => (isPlainObject(node) ? node[String(key)] : undefined), root);
    const key = String(target[target.length - 1]);
    if (isPlainObject(parent) && key in parent) {
      delete parent[key];
      return true;
    }
    target = target.slice(0, -1);
  }
}

/**
 * Plugin settings are free-form records, and the schema's records drop a key named `__proto__` without a word (it
 * would replace an object's prototype); the key is reported like an unknown setting instead.
 */
function protoKeysInPluginSettings(raw: Record<string, unknown>): string[] {
  const settings = isPlainObject(raw.plugins) ? raw.plugins.settings : undefined;
  if (!isPlainObject(settings)) return [];
  const found: string[] = [];
  if (Object.hasOwn(settings, '__proto__')) found.push('plugins.settings.__proto__');
  for (const [plugin, values] of Object.entries(settings)) {
    if (plugin !== '__proto__' && isPlainObject(values) && Object.hasOwn(values, '__proto__')) found.push(`${describePath(['plugins', 'settings', plugin])}.__proto__`);
  }
  return found.map((where) => `${where}: "__proto__" cannot be used as a name (ignored)`);
}

/**
 * Validates a (migrated) raw object against the schema. Decision for a partially invalid file: every
 * invalid field, unknown key or malformed entry is dropped and takes its default, everything valid
 * is kept. A file whose root is not an object gives the full defaults.
 */
export function validateConfig(raw: unknown): ValidationResult {
  if (!isPlainObject(raw)) {
    return { config: defaultConfig(), problems: [`(root): expected a JSON object, got ${raw === null ? 'null' : Array.isArray(raw) ? 'an array' : typeof raw} (defaults used)`] };
  }
  const candidate = structuredClone(raw);
  const problems: string[] = protoKeysInPluginSettings(candidate);
  // Each round removes at least one value, so the loop ends; the bound is a guard against surprises.
  for (let round = 0; round < 1000; round++) {
    const result = configSchema.safeParse(candidate);
    if (result.success) return { config: result.data, problems };
    for (const issue of result.error.issues as z.core.$ZodIssue[]) {
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) {
          removeAt(candidate, [...issue.path, key]);
          problems.push(`${describePath([...issue.path, key])}: unknown setting (ignored)`);
        }
        continue;
      }
      const item = issue.path.findIndex((p) => typeof p === 'number');
      problems.push(
        item < 0
          ? `${describePath(issue.path)}: ${issue.message} (default used)`
          : `${describePath(issue.path.slice(0, item))}: item ${describePath(issue.path.slice(item))}: ${issue.message} (default used for the whole list)`,
      );
      if (!removeAt(candidate, issue.path)) return { config: defaultConfig(), problems };
    }
  }
  return { config: defaultConfig(), problems: [...problems, '(root): could not be repaired (defaults used)'] };
}
