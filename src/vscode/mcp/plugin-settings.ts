// get/set plugin setting (spec 4.3): values live in plugins.settings.<plugin_name>.<key> of config.json.
import { z } from 'zod';
import type { ConfigStore } from '../../core/config';

const name = z.string().trim().min(1, 'must not be empty');
export const getPluginSettingArgs = z.object({ plugin_name: name, key: name });
export const setPluginSettingArgs = z.object({ plugin_name: name, key: name, value: z.unknown() });

/** Keys whose values are secrets: never logged, masked when shown (the configuration's one rule). */
export { isSecretKey } from '../../core/config';

/** The stored value, or undefined when the plugin or key has none. */
export async function getPluginSetting(store: ConfigStore, pluginName: string, key: string): Promise<unknown> {
  const config = await store.readConfig();
  const settings = config.plugins.settings[pluginName];
  return settings && Object.prototype.hasOwnProperty.call(settings, key) ? settings[key] : undefined;
}

/**
 * Sets one key of the plugin's settings to `value` whole (an object replaces the one there: keys left out of it are
 * gone); `null` removes the key. The other keys and plugins are kept.
 */
export async function setPluginSetting(store: ConfigStore, pluginName: string, key: string, value: unknown): Promise<void> {
  if (value === undefined) throw new Error('value is required (use null to clear a setting)');
  await store.setConfigValue(['plugins', 'settings', pluginName, key], value === null ? undefined : value);
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
