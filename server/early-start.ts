// What a server process does before its code is even loaded: boot the first text worker thread on another core
// (see worker-boot.ts), which lists the workspace as it boots (see prelist.ts). The loader (dist/server.js) does
// this before it loads the server bundle; a process restored from a start-up snapshot does it first thing.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { earlyListingWanted } from '../src/core/workspace/listing-hint';
import { prestartTextWorker } from '../src/core/workspace/worker-boot';

/** Boots the first text worker for the server that `argv` (the arguments after the script) and `env` start. */
export function startEarlyWork(argv: string[], env: NodeJS.ProcessEnv): void {
  if (argv.includes('--help') || argv.includes('--version')) return;
  prestartTextWorker(env, workspaceArgument(argv, env));
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
