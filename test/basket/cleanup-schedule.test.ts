import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { createJobRunner } from '../../src/worker.js';
import { createProduct } from '../helpers/catalogue.js';
import { recordingLogger } from '../helpers/logger.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { add, call } from './helpers.js';

// The maintenance the worker runs as it starts (and hourly after) runs the basket cleanup: soon
// after createJobRunner().start() an empty basket older than a day is gone and the report counts it
// under `baskets`. Fails if src/worker.ts stops handing basketPruning() to the pruning. Real timers:
// the hourly run does not come within the test, so the one report is the start's.

let t: TestApp;
let book: number;
const DAY = 86_400_000;
beforeAll(async () => {
  t = await createTestApp();
  book = await createProduct(t.database.db, { availability: 'COMING_SOON', deliveryTime: 'PREORDER' });
});
afterAll(() => t.close());

const exists = async (id: number) =>
  (await t.database.db.selectFrom('basket').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;

it('deletes an old empty basket as the worker starts, and reports it as baskets', async () => {
  // An empty guest basket last changed two days ago, and a fresh one with a line that stays.
  const emptied = await add(t, {}, book, 1);
  await call(t, 'DELETE', `/basket/remove-product?productId=${book}`, { token: emptied.basketToken! });
  await t.database.db
    .updateTable('basket')
    .set({ updated_at: Date.now() - 2 * DAY })
    .where('id', '=', emptied.id!)
    .execute();
  const kept = await add(t, {}, book, 1);

  expect(await exists(emptied.id!)).toBe(true);
  const { log, lines } = recordingLogger();
  const runner = createJobRunner(t.database, t.config, log, { clock: t.clock });
  runner.start();
  try {
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
