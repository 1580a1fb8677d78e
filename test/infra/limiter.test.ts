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
