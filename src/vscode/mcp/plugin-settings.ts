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
