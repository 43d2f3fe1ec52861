// Deep merge for configuration updates: objects merge key by key, arrays and scalars replace.

/** A partial configuration: every object level optional, arrays and scalars whole. */
export type DeepPartial<T> = T extends readonly unknown[]
  ? T
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> | null }
    : T;

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Returns a new object: `patch` merged into `base`. Plain objects merge recursively; arrays, null and
 * scalars replace; `undefined` in the patch leaves the base value alone. Neither input is modified.
 */
export function deepMerge(base: unknown, patch: unknown): unknown {
  if (patch === undefined) return structuredClone(base);
  if (!isPlainObject(patch) || !isPlainObject(base)) return structuredClone(patch);
  const out: Record<string, unknown> = structuredClone(base);
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    // Defined, not assigned: a "__proto__" key from parsed JSON stays an ordinary (unknown, so rejected) key
    // instead of replacing the result's prototype.
    const own = Object.prototype.hasOwnProperty.call(base, key) ? base[key] : undefined;
    Object.defineProperty(out, key, { value: deepMerge(own, value), enumerable: true, writable: true, configurable: true });
  }
  return out;
}
