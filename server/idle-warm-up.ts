// Work the first requests need and the handshake does not, done once the handshake is over instead of before it:
// one step per turn of the event loop, so that a request that comes meanwhile waits for one step at most, and the
// steps run while it waits on other work (ripgrep, a text worker). A client that calls a tool a moment after the
// handshake finds it all done.

export interface WarmUpStep {
  /** What the step makes ready, for the log. */
  name: string;
  run: () => void;
}

/**
 * Runs `steps` in order, each in a turn of its own (setImmediate). A step that fails is logged and skipped: what it
 * would have made ready is made by the first request that needs it, as without it. Returns a function that drops
 * the steps not run yet.
 */
export function warmUpInTurns(steps: readonly WarmUpStep[], log: (message: string) => void = () => undefined): () => void {
  let next = 0;
  let timer: NodeJS.Immediate | undefined;
  const turn = () => {
    timer = undefined;
    const step = steps[next++];
    if (!step) return;
    try {
      step.run();
    } catch (err) {
      log(`warming up ${step.name} failed (it is made on first use instead): ${(err as Error).message}`);
    }
    if (next < steps.length) timer = setImmediate(turn);
  };
  timer = setImmediate(turn);
  return () => {
    if (timer) clearImmediate(timer);
    timer = undefined;
    next = steps.length;
  };
}
