// The server status record of spec 2.2, and the connection string of spec 4.1.
import path from 'node:path';

export interface ServerStatus {
  is_running: boolean;
  port: number;
  pid: number | null;
  url: string | null;
  last_error: string | null;
}

/** `stdio://localhost/<path to the server entry>`, with forward slashes so the string is the same shape everywhere. */
export function stdioUrl(serverScript: string): string {
  const posix = path.resolve(serverScript).split(path.sep).join('/');
  return `stdio://localhost/${posix.replace(/^\/+/, '')}`;
}
