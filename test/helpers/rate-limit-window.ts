import { beforeEach } from 'vitest';

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;

/**
 * Rate limits and mail caps count in fixed windows of the system clock (infra/rate-limit.ts), unless the
 * app (and its job worker) is given a clock of the test's. A test that counts up to a limit and runs across a window's end
 * counts in two windows and meets its limit late: one did, run across 17:00 UTC. Registered in a
 * file, this makes every test of it that would start less than `roomMs` before the end of a
 * `windowMs` window (the file's shortest, counted from the epoch as the limits are) wait for the
 * next window instead. Files whose windows are a minute freeze the app's clock instead (e.g.
 * test/accounts/rate-limits.test.ts): a wait of up to a minute's share would cost too much there.
 */
export function keepEachTestInOneRateLimitWindow(windowMs = HOUR, roomMs = 15_000): void {
  beforeEach(() => roomInRateLimitWindow(windowMs, roomMs), roomMs + 10_000);
}

/** Resolves at once while `roomMs` of the current window is left, else just after the next window starts. */
export async function roomInRateLimitWindow(windowMs: number, roomMs: number): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < roomMs) await new Promise((resolve) => setTimeout(resolve, left + 100));
}
