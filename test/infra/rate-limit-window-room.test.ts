import { afterEach, describe, expect, it, vi } from 'vitest';
import { MINUTE, roomInRateLimitWindow } from '../helpers/rate-limit-window.js';

// The helper that keeps a rate-limit test inside one fixed window (test/helpers/rate-limit-window.ts).
describe('roomInRateLimitWindow', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const settledAfter = async (now: number) => {
    vi.useFakeTimers({ now });
    let settled = false;
    void roomInRateLimitWindow(MINUTE, 15_000).then(() => (settled = true));
    await vi.advanceTimersByTimeAsync(0);
    if (settled) return 0;
    let waited = 0;
    while (!settled) {
      await vi.advanceTimersByTimeAsync(50);
      waited += 50;
    }
    return waited;
  };

  it('goes on at once with room left in the window', async () => {
    expect(await settledAfter(100 * MINUTE + 1_000)).toBe(0);
    expect(await settledAfter(101 * MINUTE - 15_000)).toBe(0);
  });

  it('waits for the next window when less than the room is left, counted from the epoch', async () => {
    const waited = await settledAfter(101 * MINUTE - 5_000);
    expect(waited).toBeGreaterThanOrEqual(5_000);
    expect(waited).toBeLessThan(5_300);
  });
});
