import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { createJobRunner } from '../../src/worker.js';
import { createProduct } from '../helpers/catalogue.js';
import { recordingLogger } from '../helpers/logger.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { add, call } from './helpers.js';

// The hourly maintenance the worker starts runs the basket cleanup: with only setInterval faked,
// an hour after createJobRunner().start() an empty basket older than a day is gone and the report
// counts it under `baskets`. Fails if src/worker.ts stops handing basketPruning() to the pruning.

let t: TestApp;
let book: number;
const DAY = 86_400_000;
const HOUR = 3_600_000;
beforeAll(async () => {
  t = await createTestApp();
  book = await createProduct(t.database.db, { availability: 'COMING_SOON', deliveryTime: 'PREORDER' });
});
afterAll(() => t.close());
afterEach(() => vi.useRealTimers());

const exists = async (id: number) =>
  (await t.database.db.selectFrom('basket').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;

it('deletes an old empty basket within the hour after the worker starts, and reports it as baskets', async () => {
  // An empty guest basket last changed two days ago, and a fresh one with a line that stays.
  const emptied = await add(t, {}, book, 1);
  await call(t, 'DELETE', `/basket/remove-product?productId=${book}`, { token: emptied.basketToken! });
  await t.database.db
    .updateTable('basket')
    .set({ updated_at: Date.now() - 2 * DAY })
    .where('id', '=', emptied.id!)
    .execute();
  const kept = await add(t, {}, book, 1);

  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  const { log, lines } = recordingLogger();
  const runner = createJobRunner(t.database, t.config, log);
  runner.start();
  try {
    expect(await exists(emptied.id!)).toBe(true);
    vi.advanceTimersByTime(HOUR);
    await vi.waitFor(
      () => {
        expect(lines.find((line) => line.msg === 'pruned expired rows' || line.msg === 'pruning failed')).toBeDefined();
      },
      { timeout: 10_000, interval: 20 },
    );
    const report = lines.find((line) => line.msg === 'pruned expired rows');
    expect(report, JSON.stringify(lines)).toBeDefined();
    expect(report!.obj).toMatchObject({ baskets: 1 });
    expect(await exists(emptied.id!)).toBe(false);
    expect(await exists(kept.id!)).toBe(true);
  } finally {
    await runner.stop();
  }
});
