/**
 * Runs `task` as soon as the event loop is free and then every `intervalMs`, until stopped; neither
 * timer keeps the process alive. For a worker's periodic runs (pruning, billing): the first is not an
 * interval away, or a worker restarted more often than that (each release, a crash loop) would never
 * run it at all.
 */
export function repeatFromStart(task: () => void, intervalMs: number): { stop(): void } {
  const first = setTimeout(task, 0);
  const timer = setInterval(task, intervalMs);
  first.unref();
  timer.unref();
  return {
    stop() {
      clearTimeout(first);
      clearInterval(timer);
    },
  };
}

/**
 * Runs `run` every `intervalMs` (and as soon as the event loop is free too, with `fromStart`), one
 * run at a time in this process: a turn that comes while one runs is skipped. `run` handles its own
 * failures (logs them): the next turn tries again. stop() ends the turns and waits for the run in hand.
 */
export function repeatOneAtATime(
  run: () => Promise<unknown>,
  intervalMs: number,
  options: { fromStart?: boolean } = {},
): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  let busy = false;
  const turn = () => {
    if (busy) return;
    busy = true;
    running = run().finally(() => {
      busy = false;
    });
  };
  const repeating = options.fromStart ? repeatFromStart(turn, intervalMs) : interval(turn, intervalMs);
  return {
    async stop() {
      repeating.stop();
      await running;
    },
  };
}

function interval(task: () => void, intervalMs: number): { stop(): void } {
  const timer = setInterval(task, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
