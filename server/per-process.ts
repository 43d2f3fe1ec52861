// Values each server process makes for itself (random placeholders and keys). A start-up snapshot (see
// startup-snapshot.ts) holds the heap as the server's modules left it, so a value made while they load would be the
// same in every process started from it: such values are made again as each process is restored from the snapshot.
// The snapshot's builder refuses a bundle that draws random bytes as it loads anywhere else.
import v8 from 'node:v8';

/** Runs `make` now, or, while a start-up snapshot is being built, as each process is restored from it instead. */
export function perProcess(make: () => void): void {
  const snapshot = v8.startupSnapshot;
  if (snapshot?.isBuildingSnapshot()) snapshot.addDeserializeCallback(make);
  else make();
}
