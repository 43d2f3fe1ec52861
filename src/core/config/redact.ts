// The one rule for hiding secrets of the configuration wherever it is shown: resources, logs, the settings UI.

export const REDACTED = '[redacted]';

/** Key names that hold secrets wherever they appear: apiKey, clientSecretValue, accessTokens, password2, authorization, ... */
const SECRET_NAME = /(key$|api[-_]?key|private[-_]?key|secret|token|passw(or)?d|pass(phrase|code)?$|pwd|credential|auth|cookie|session[-_]?id)/i;

/** Nesting deeper than this is replaced whole rather than walked. */
const MAX_DEPTH = 16;

export function isSecretKey(key: string): boolean {
  return SECRET_NAME.test(key);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Copy of `value` with the value of every secret-named key replaced, at any depth (arrays included). */
export function redactSecretKeys(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return REDACTED;
  if (Array.isArray(value)) return value.map((x) => redactSecretKeys(x, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, x]) => [k, isSecretKey(k) ? REDACTED : redactSecretKeys(x, depth + 1)]));
}

/**
 * Plugin settings as they may be shown: the setting names stay, every value is replaced. Their keys and shapes are
 * free (credentials: {pass}, authorization: "Bearer ...", tokens in lists), so no name rule can be trusted there.
 */
export function redactPluginSettings(settings: unknown): Record<string, Record<string, string>> {
  if (!isRecord(settings)) return {};
  return Object.fromEntries(
    Object.entries(settings).map(([plugin, values]) => [plugin, isRecord(values) ? Object.fromEntries(Object.keys(values).map((k) => [k, REDACTED])) : {}]),
  );
}

/** Copy of a configuration for display: every plugin setting value and every secret-named value elsewhere replaced. */
export function redactConfig(config: unknown): Record<string, unknown> {
  const copy = redactSecretKeys(config);
  if (!isRecord(copy)) return {};
  const plugins = isRecord(config) ? config.plugins : undefined;
  if (isRecord(copy.plugins) && isRecord(plugins)) copy.plugins = { ...copy.plugins, settings: redactPluginSettings(plugins.settings) };
  return copy;
}
