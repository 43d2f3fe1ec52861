// Values each server process makes for itself (random placeholders and keys). A start-up snapshot (see
// startup-snapshot.ts) holds the heap as the server's modules left it, so a value made while they load would be the
// same in every process started from it: such values are made again as each process is restored from the snapshot.
// The snapshot's builder refuses a bundle that draws random bytes as it loads anywhere else.
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

/** Runs `make` now, or, while a start-up snapshot is being built, as each process is restored from it instead. */
export function perProcess(make: () => void): void {
  const snapshot = snapshotBeingBuilt();
  if (snapshot) snapshot.addDeserializeCallback(make);
  else make();
}
