import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { schedulePruning } from '../../src/infra/maintenance.js';
import { expireCards } from '../../src/modules/gift-cards/index.js';
import { recordingLogger } from '../helpers/logger.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// The worker's hourly maintenance runs the modules' prune tasks one after another (src/worker.ts:
// access tokens, baskets, ... gift-card expiry, integration events, banner hours). One that failed
// ended the run there: a task that keeps failing (a statement that times out on a grown table, a
// row it cannot handle) stopped every task after it for good, so gift cards never expired and those
// tables grew, with one "pruning failed" an hour that named no task. Each task now runs on its own.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

it('runs the tasks after one that fails, and names the one that failed', async () => {
  const ran: string[] = [];
  const { log, lines } = recordingLogger();
  const pruning = schedulePruning(t.database.db, log, 3_600_000, {
    broken: async () => {
      throw new Error('statement timeout');
    },
    expiredGiftCards: async (db, now) => {
      ran.push('expiredGiftCards');
      return expireCards(db, now);
    },
  });
  try {
    await vi.waitFor(
      () =>
        expect(
          lines.find((line) => line.msg === 'pruned expired rows'),
          JSON.stringify(lines),
        ).toBeDefined(),
      {
        timeout: 10_000,
        interval: 20,
      },
    );
  } finally {
    pruning.stop();
  }
  expect(ran).toEqual(['expiredGiftCards']);
  const failure = lines.find((line) => line.msg === 'pruning failed');
  expect(failure?.level).toBe('error');
  expect(failure?.obj).toMatchObject({ task: 'broken' });
  expect(lines.find((line) => line.msg === 'pruned expired rows')?.obj).toMatchObject({ expiredGiftCards: 0, failed: ['broken'] });
});
