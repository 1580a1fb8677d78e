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
