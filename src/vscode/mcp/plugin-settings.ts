// get/set plugin setting (spec 4.3): values live in plugins.settings.<plugin_name>.<key> of config.json.
import { z } from 'zod';
import type { ConfigStore } from '../../core/config';
import { NotesError } from '../../core/errors';

/**
 * A plugin name or key: text as given (surrounding whitespace is refused, not trimmed: " apiKey" and "apiKey" would
 * be two keys in the file), never `__proto__`, which JavaScript reads as an object's prototype, not a name.
 */
const name = z
  .string({ error: (issue) => `must be a string, got ${shownArgument(issue.input)}` })
  .min(1, 'must not be empty')
  .refine((s) => s.trim() === s, 'must not start or end with whitespace')
  .refine((s) => s !== '__proto__', '"__proto__" cannot be used as a name');
/** The names of a plugin setting, as get and set take them. */
export const pluginSettingNames = z.object({ plugin_name: name, key: name });

/** An argument as an error message shows it: JSON where JSON can show it, else its kind. */
export function shownArgument(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'symbol') return 'a symbol';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  try {
    return JSON.stringify(value) ?? typeof value;
  } catch {
    return typeof value;
  }
}

/** Checks arguments against a schema; the error names each bad argument and why. */
export function checkArgs<T>(schema: z.ZodType<T>, what: string, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new Error(`${what}: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'arguments'} ${i.message}`).join('; ')}`);
  }
  return parsed.data;
}

/**
 * Why `value` (at `where`) is not a value JSON holds as it is, or undefined when it is: null, booleans, finite numbers,
 * strings, arrays and plain objects of those. Everything else would be written as something else or not at all (NaN
 * and Infinity as null, a Map as {}, a Date as text, a function left out) or cannot be written (a BigInt, a cycle).
 */
export function jsonValueProblem(value: unknown, where: string, ancestors: object[] = []): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : `${where} is ${value}, which JSON cannot hold (only finite numbers)`;
    case 'bigint':
      return `${where} is the BigInt ${value}n, which JSON cannot hold: store it as a number or as text`;
    case 'undefined':
      return `${where} is undefined, which JSON cannot hold: leave it out, or use null`;
    case 'function':
      return `${where} is a function, which JSON cannot hold`;
    case 'symbol':
      return `${where} is a symbol, which JSON cannot hold`;
  }
  if (value === null) return undefined;
  const object = value as object;
  if (ancestors.includes(object)) return `${where} contains itself, which JSON cannot hold`;
  const inside = [...ancestors, object];
  if (Array.isArray(object)) {
    for (let i = 0; i < object.length; i++) {
      const problem = jsonValueProblem(object[i], `${where}[${i}]`, inside);
      if (problem) return problem;
    }
    return undefined;
  }
  const proto: unknown = Object.getPrototypeOf(object);
  if (proto !== Object.prototype && proto !== null) {
    const named = (object.constructor as { name?: string } | undefined)?.name;
    const kind = named && named !== 'Object' ? `a ${named}` : 'an object that is not a plain object';
    return `${where} is ${kind}, which JSON cannot hold as it is (only plain objects and arrays): convert it first${named === 'Date' ? ', for instance with toISOString()' : ''}`;
  }
  for (const [key, item] of Object.entries(object)) {
    const problem = jsonValueProblem(item, `${where}${/^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`}`, inside);
    if (problem) return problem;
  }
  return undefined;
}

/** Keys whose values are secrets: never logged, masked when shown (the configuration's one rule). */
export { isSecretKey } from '../../core/config';

/** The stored value, or undefined when the plugin or key has none (only the file's own entries count). */
export async function getPluginSetting(store: ConfigStore, pluginName: string, key: string): Promise<unknown> {
  const a = checkArgs(pluginSettingNames, 'get plugin setting', { plugin_name: pluginName, key });
  const read = await store.inspect();
  // A file that is not JSON, or cannot be read, reads as the defaults: "not set" would be wrong about what it holds.
  if (read.unusable !== undefined) {
    throw new NotesError('CONFIG_INVALID', `Configuration ${store.file} cannot be used (${read.unusable}), so what it holds for "${a.plugin_name}" is not known: fix the file ("Notes: Open Configuration") and try again.`);
  }
  const all = read.config.plugins.settings;
  const settings = Object.hasOwn(all, a.plugin_name) ? all[a.plugin_name] : undefined;
  return settings && Object.hasOwn(settings, a.key) ? settings[a.key] : undefined;
}

/**
 * Sets one key of the plugin's settings to `value` whole (an object replaces the one there: keys left out of it are
 * gone); `null` removes the key. The other keys and plugins are kept.
 */
export async function setPluginSetting(store: ConfigStore, pluginName: string, key: string, value: unknown): Promise<void> {
  if (value === undefined) throw new Error('set plugin setting: value is required (use null to clear a setting)');
  const a = checkArgs(pluginSettingNames, 'set plugin setting', { plugin_name: pluginName, key });
  const problem = jsonValueProblem(value, 'value');
  if (problem) throw new Error(`set plugin setting: ${problem}; nothing was written`);
  await store.setConfigValue(['plugins', 'settings', a.plugin_name, a.key], value === null ? undefined : value);
}

/**
 * What the Get Plugin Setting command shows of a value. Plugin settings are free-form and may hold a secret under
 * any name or shape (`headers.Authorization`, a connection string, a webhook URL), so text is never shown: numbers,
 * booleans and null are, and of text, lists and objects only their size and key names.
 */
export function shownPluginSetting(value: unknown): string {
  if (value === undefined) return 'is not set';
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return `= ${JSON.stringify(value)}`;
  const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;
  const keys = typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : [];
  const named = keys.length ? ` (${keys.slice(0, 10).join(', ')}${keys.length > 10 ? ', …' : ''})` : '';
  const what =
    typeof value === 'string'
      ? `text of ${plural([...value].length, 'character')}`
      : Array.isArray(value)
        ? `a list of ${plural(value.length, 'item')}`
        : typeof value === 'object'
          ? `an object with ${plural(keys.length, 'key')}${named}`
          : typeof value;
  return `is set: ${what} (not shown, as a plugin setting may hold a secret under any name: see config.json)`;
}
