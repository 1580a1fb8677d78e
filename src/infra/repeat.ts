import type { Clock } from './clock.js';

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
 * Runs `run(clock.now())` every `intervalMs` (the first an interval away), one run at a time in this
 * process: a tick while one is in flight is skipped. A run's result goes to `done`, a failure to
 * `failed`, and the next tick tries again. Stopping waits for the run in flight. For the worker's
 * scans, whose runs are safe against another process's at the same moment.
 */
export function repeatOneAtATime<T>(
  run: (now: number) => Promise<T>,
  intervalMs: number,
  clock: Clock,
  report: { done(result: T): void; failed(err: unknown): void },
): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    running = run(clock.now())
      .then(report.done, report.failed)
      .finally(() => {
        busy = false;
      });
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
