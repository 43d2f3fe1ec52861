// The ripgrep program the unit tests run.
import { locateRipgrep } from '../../../src/core/workspace/ripgrep';

/** NOTESAPP_RIPGREP, else rg on PATH (Debian's ripgrep package; .ci/run installs it). Tests of ripgrep fail without one. */
export function testRipgrep(): string {
  const program = locateRipgrep(process.env);
  if (!program) throw new Error('these tests need ripgrep: install it (Debian: apt-get install ripgrep) or set NOTESAPP_RIPGREP');
  return program;
}
