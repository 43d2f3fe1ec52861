// The server's identity, taken from package.json at build time.
import pkg from '../package.json';

export const SERVER_NAME = 'notesapp';
export const SERVER_VERSION: string = pkg.version;
