// Comparison of the config file's `major.minor.patch` version strings.

const VERSION = /^(\d+)\.(\d+)\.(\d+)$/;

/** True for a `major.minor.patch` string. */
export function isVersion(value: unknown): boolean {
  return typeof value === 'string' && VERSION.test(value);
}

/** Parses `1.2.3`; anything else (missing, malformed) counts as 0.0.0, i.e. older than every migration. */
export function parseVersion(value: unknown): [number, number, number] {
  const m = typeof value === 'string' ? VERSION.exec(value) : null;
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : [0, 0, 0];
}

export function compareVersions(a: unknown, b: unknown): number {
  const x = parseVersion(a);
  const y = parseVersion(b);
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] - y[i];
  return 0;
}
