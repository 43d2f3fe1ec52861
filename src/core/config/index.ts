// The configuration module's public surface, shared by the extension and the MCP server.
export { CONFIG_VERSION, configSchema, defaultConfig, type NotesConfig } from './schema';
export { configFilePath, platformConfigDir } from './paths';
export { keepingUsableSettings, loadConfigFile, parseConfigBytes, switchOffAsIn, type ConfigLoad, type ConfigFileLoad } from './load';
export { ConfigStore, createConfigStore, type ConfigLogger, type ConfigReport, type ConfigListener, type ConfigStoreOptions } from './store';
export { deepMerge, type DeepPartial } from './merge';
export { isSecretKey, REDACTED, redactConfig, redactPluginSettings, redactSecretKeys } from './redact';
export { MIGRATIONS, migrateConfig, type Migration } from './migrations';
