// Types of line-client.mjs for the TypeScript tests that drive a server over stdio.
import type { ChildProcessWithoutNullStreams } from 'node:child_process';

export declare class LineClient {
  static start(command: string, args: string[], env?: NodeJS.ProcessEnv, options?: { stderr?: 'ignore' | 'pipe' }): Promise<LineClient>;
  readonly child: ChildProcessWithoutNullStreams;
  request(method: string, params: unknown): Promise<unknown>;
  requestWithLine(method: string, params: unknown): Promise<{ result: unknown; line: string }>;
  timedCall(name: string, args: unknown): Promise<{ ms: number; result: unknown; line: string }>;
  close(): void;
}
