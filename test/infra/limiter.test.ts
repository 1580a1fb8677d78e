import { describe, expect, it } from 'vitest';
import { createLimiter } from '../../src/infra/limiter.js';

describe('createLimiter', () => {
  it('runs at most N tasks at once, in order, and passes results and failures through', async () => {
    const limit = createLimiter(2);
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    const task = (id: number) => async () => {
      started.push(id);
      running += 1;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running -= 1;
      if (id === 3) throw new Error('task 3 failed');
      return id;
    };
    const results = await Promise.allSettled([1, 2, 3, 4, 5].map((id) => limit(task(id))));
    expect(peak).toBe(2);
    expect(started).toEqual([1, 2, 3, 4, 5]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([1, 2, 'task 3 failed', 4, 5]);
  });
});

describe('a resized limiter', () => {
  it('holds new tasks to the new size, starts waiting ones when it grows, and refuses a size below one', async () => {
    const limit = createLimiter(1);
    const releases: Array<() => void> = [];
    const task = () => limit(() => new Promise<void>((resolve) => releases.push(resolve)));
    const tasks = [task(), task(), task()];
    await Promise.resolve();
    expect(limit.state()).toEqual({ concurrency: 1, running: 1, waiting: 2, mostRunning: 1 });
    limit.resize(2);
    expect(limit.state()).toMatchObject({ concurrency: 2, running: 2, waiting: 1 });
    while (releases.length > 0 || limit.state().running > 0) {
      releases.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(tasks);
    expect(limit.state()).toEqual({ concurrency: 2, running: 0, waiting: 0, mostRunning: 2 });
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(() => limit.resize(bad)).toThrow(RangeError);
  });

  it('hands a finished place to the next in line: one arriving meanwhile waits its turn', async () => {
    const limit = createLimiter(1);
    let running = 0;
    let peak = 0;
    const work = async () => {
      running += 1;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setImmediate(resolve));
      running -= 1;
    };
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const first = limit(() => gate);
    const second = limit(work);
    // Called back by the first task's own promise, in the turn after the limiter's finally: the
    // second task has been woken but not yet resumed. Its place must already be taken.
    let third: Promise<void> | undefined;
    void gate.then(() => (third = limit(work)));
    open();
    await first;
    await Promise.all([second, third]);
    expect(third).toBeDefined();
    expect(peak).toBe(1);
  });
});
