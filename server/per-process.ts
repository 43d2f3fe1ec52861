// Values each server process makes for itself (random placeholders and keys). A start-up snapshot (see
// startup-snapshot.ts) holds the heap as the server's modules left it, so a value made while they load would be the
// same in every process started from it: such values are made on first use instead, never while the modules load.
// The snapshot's builder refuses a bundle that draws random bytes as it loads.
import type v8 from 'node:v8';

/**
 * Node's start-up snapshot API while this process builds one, else undefined. node:v8 is loaded only then: loading it
 * costs a server start about 2 ms.
 */
export function snapshotBeingBuilt(): typeof v8.startupSnapshot | undefined {
  if (!process.execArgv.includes('--build-snapshot')) return undefined;
  const snapshot = process.getBuiltinModule('node:v8').startupSnapshot;
  return snapshot.isBuildingSnapshot() ? snapshot : undefined;
}

/**
 * A value each process makes for itself the first time it is asked for (random bytes for a key or a placeholder):
 * `get` makes it, `peek` answers undefined until then. It is never made as the modules load, so no start-up snapshot
 * holds it, and a process that never needs it does not load what makes it (node:crypto, about 2.5 ms of a start). One
 * made while a snapshot is being built is dropped as each process is restored from the snapshot.
 */
export function perProcessValue<T extends NonNullable<unknown>>(make: () => T): { get(): T; peek(): T | undefined } {
  let value: T | undefined;
  snapshotBeingBuilt()?.addDeserializeCallback(() => {
    value = undefined;
  });
  return { get: () => (value ??= make()), peek: () => value };
}
