// Hidden tools for the process-level tests (timeouts); registered only when NOTESAPP_TEST_HOOKS=1.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { LogFn } from './logger';

export const TEST_HOOKS_ENV = 'NOTESAPP_TEST_HOOKS';

export function testHooksEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[TEST_HOOKS_ENV] === '1';
}

export function registerTestHooks(server: McpServer, log: LogFn): void {
  server.registerTool(
    'notesapp_test_sleep',
    {
      description: 'Test hook: waits `ms` milliseconds unless its operation is aborted.',
      inputSchema: { ms: z.number().int().min(0).max(600_000) },
    },
    async ({ ms }, extra) => {
      const started = Date.now();
      await new Promise<void>((resolve, reject) => {
        if (extra.signal.aborted) {
          log('info', 'test hook: sleep aborted by its signal after 0 ms');
          reject(new Error('aborted'));
          return;
        }
        const timer = setTimeout(resolve, ms);
        extra.signal.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            log('info', `test hook: sleep aborted by its signal after ${Date.now() - started} ms`);
            reject(new Error('aborted'));
          },
          { once: true },
        );
      });
      return { content: [{ type: 'text', text: `slept ${ms} ms` }] };
    },
  );
}
