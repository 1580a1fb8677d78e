import { afterAll, beforeAll, expect, it } from 'vitest';
import { pruneExpired } from '../../src/infra/maintenance.js';
import { consumeRateLimit } from '../../src/infra/rate-limit.js';
import { RATE_LIMIT_KEPT_MS } from '../../src/infra/rate-limit-window.js';
import { configProblems } from '../helpers/config.js';
import { openMigratedScratch } from '../helpers/test-app.js';

// Every worker prunes rate-limit counters a day after their window started (maintenance.ts). A
// limit counted over longer (CONTACT_RATE_LIMIT_PER_EMAIL=5/7d) lost its count each day, letting
// another 5 through, so the settings refuse it; a limit of a day at most keeps its count to the end.

let scratch: Awaited<ReturnType<typeof openMigratedScratch>>;
beforeAll(async () => {
  scratch = await openMigratedScratch();
});
afterAll(() => scratch.close());

it('refuses a rate limit counted over more than a day, naming it; a day is fine', () => {
  expect(configProblems({ CONTACT_RATE_LIMIT_PER_EMAIL: '5/7d', AUTH_RATE_LIMIT_PER_IP: '30/25h' })).toEqual([
    'AUTH_RATE_LIMIT_PER_IP must count over a day at most (counters are pruned a day after their window starts), got "30/25h"',
    'CONTACT_RATE_LIMIT_PER_EMAIL must count over a day at most (counters are pruned a day after their window starts), got "5/7d"',
  ]);
  expect(configProblems({ CONTACT_RATE_LIMIT_PER_EMAIL: '5/1d', AUTH_RATE_LIMIT_PER_IP: '30/24h' })).toEqual([]);
});

it("keeps the count of the longest window allowed through the workers' pruning until the window ends", async () => {
  const limit = { max: 1, windowMs: RATE_LIMIT_KEPT_MS };
  const windowStart = Date.UTC(2026, 10, 30);
  const lastMoment = windowStart + RATE_LIMIT_KEPT_MS - 1;
  await consumeRateLimit(scratch.database.db, 'scale:longest', limit, windowStart);
  await pruneExpired(scratch.database.db, lastMoment);
  await expect(consumeRateLimit(scratch.database.db, 'scale:longest', limit, lastMoment)).rejects.toMatchObject({ kind: 'rate-limited' });
  await pruneExpired(scratch.database.db, lastMoment + RATE_LIMIT_KEPT_MS + 1);
  await expect(consumeRateLimit(scratch.database.db, 'scale:longest', limit, lastMoment + RATE_LIMIT_KEPT_MS + 1)).resolves.toBeUndefined();
});
