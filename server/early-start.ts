// What a server process does before its code is even loaded: boot the first text worker thread on another core
// (see worker-boot.ts), which lists the workspace as it boots (see prelist.ts). The loader (dist/server.js) does
// this before it loads the server bundle; a process restored from a start-up snapshot does it first thing. Only when
// there is a workspace to list early: with nothing to list, the worker would only be ahead of the index, which then
// boots its own once the handshake is done, and it cost the handshake 16-20 ms on a busy two-core machine (loading
// node:worker_threads and creating the thread on the protocol thread, 4-8 ms, and the thread's start taking a core
// from the loading server; see the README's "How the server gets there").
import path from 'node:path';
import { parseArgs } from 'node:util';
import { earlyListingWanted } from '../src/core/workspace/listing-hint';
import { prestartTextWorker } from '../src/core/workspace/worker-boot';

/**
 * Boots the first text worker, listing the workspace, for the server that `argv` (the arguments after the script)
 * and `env` start, when it has a workspace to list early (see workspaceArgument).
 */
export function startEarlyWork(argv: string[], env: NodeJS.ProcessEnv): void {
  if (argv.includes('--help') || argv.includes('--version')) return;
  const workspace = workspaceArgument(argv, env);
  if (workspace !== undefined) prestartTextWorker(env, workspace);
}

/**
 * The workspace folder as main.ts takes it from --workspace or NOTESAPP_WORKSPACE, for the worker to list early
 * (undefined when it comes from the configuration or the current folder, with NOTESAPP_EARLY_LISTING=off, or when
 * it held fewer than EARLY_LISTING_MIN_FILES files last time: the index then lists it the usual way).
 */
function workspaceArgument(argv: string[], env: NodeJS.ProcessEnv): string | undefined {
  if (env.NOTESAPP_EARLY_LISTING === 'off') return undefined;
  let named: string | undefined;
  try {
    // As main.ts reads it; other flags are main.ts's to check.
    const value = parseArgs({ args: argv, options: { workspace: { type: 'string' } }, strict: false }).values.workspace;
    if (typeof value === 'string') named = value;
  } catch {
    return undefined;
  }
  const chosen = named ?? env.NOTESAPP_WORKSPACE;
  if (!chosen) return undefined;
  const workspace = path.resolve(chosen);
  return earlyListingWanted(workspace, env) ? workspace : undefined;
}
