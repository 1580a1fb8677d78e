/** Runs at most `concurrency` tasks at a time; the rest wait in order. */
export interface Limiter {
  <T>(task: () => Promise<T>): Promise<T>;
  /** A new size: tasks that start after it hold to it, and waiting ones start at once if it grew. */
  resize(concurrency: number): void;
  /** The size, the tasks running and waiting, and the most that ran at once since the last resize: for tests. */
  state(): { concurrency: number; running: number; waiting: number; mostRunning: number };
}

/**
 * A limiter of `concurrency` tasks at a time. Waiting is a promise, so the event loop stays free.
 * A finished task hands its place to the next in line (counted as running before that one resumes),
 * so a task that arrives meanwhile cannot take the same place.
 */
export function createLimiter(initial: number): Limiter {
  let concurrency = checked(initial);
  let running = 0;
  let mostRunning = 0;
  const waiting: Array<() => void> = [];
  const take = () => {
    running += 1;
    mostRunning = Math.max(mostRunning, running);
  };
  const startWaiting = () => {
    while (running < concurrency && waiting.length > 0) {
      take();
      waiting.shift()!();
    }
  };
  const limit = async <T>(task: () => Promise<T>): Promise<T> => {
    if (running < concurrency && waiting.length === 0) take();
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      running -= 1;
      startWaiting();
    }
  };
  return Object.assign(limit, {
    resize(size: number) {
      concurrency = checked(size);
      mostRunning = running;
      startWaiting();
    },
    state: () => ({ concurrency, running, waiting: waiting.length, mostRunning }),
  });
}

function checked(concurrency: number): number {
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new RangeError(`a limiter runs a whole number of tasks above 0, not ${concurrency}`);
  return concurrency;
}
