import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { createJobRunner } from '../../src/worker.js';
import { recordingLogger } from '../helpers/logger.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// The worker's maintenance (as it starts, then hourly) forgets the uses of download links that have expired (a link's
// use is only needed while the link could still be followed). Fails if src/worker.ts stops
// handing pruneUsedLinks to the pruning.

let t: TestApp;
const HOUR = 3_600_000;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

it('deletes the records of expired links as the worker starts (and hourly after), and keeps the live ones', async () => {
  const now = Date.now();
  await t.database.db
    .insertInto('download_link_use')
    .values([
      { link_id: 'expired-link', order_id: 1, product_id: 1, expires_at: now - 60_000 },
      { link_id: 'live-link', order_id: 1, product_id: 1, expires_at: now + HOUR * 2 },
    ])
    .execute();
  // Real timers: the hourly run does not come within the test, so the one report is the start's.
  const { log, lines } = recordingLogger();
  const runner = createJobRunner(t.database, t.config, log, { clock: t.clock });
  runner.start();
  try {
    await vi.waitFor(
      () => expect(lines.find((line) => line.msg === 'pruned expired rows' || line.msg === 'pruning failed')).toBeDefined(),
      {
        timeout: 10_000,
        interval: 20,
      },
    );
    expect(lines.find((line) => line.msg === 'pruned expired rows')?.obj).toMatchObject({ usedDownloadLinks: 1 });
    const left = await t.database.db.selectFrom('download_link_use').select('link_id').execute();
    expect(left.map((row) => row.link_id)).toEqual(['live-link']);
  } finally {
    await runner.stop();
  }
});
