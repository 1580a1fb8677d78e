import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';
import { sample, scrape } from './metrics-text.js';

// On PostgreSQL a product's refresh writes its category totals' changes as deltas that a worker folds
// every 10 s (scheduleCategoryTotalsFold). With WORKER=off and no `storefront worker` nothing folds
// them and every total's read sums a longer range: /metrics tells how many wait and how long the
// oldest has, for an alert (docs/deployment.md). SQLite keeps its counts by triggers: none there.

const TOKEN = 'metrics-token-0123456789abcdef';
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { METRICS_TOKEN: TOKEN } });
});
afterAll(() => t?.close());

const gauges = async () => {
  const text = await scrape(t, TOKEN);
  return {
    deltas: sample(text, 'storefront_category_totals_deltas'),
    age: sample(text, 'storefront_category_totals_oldest_delta_age_seconds'),
  };
};

it('shows the unfolded category totals deltas and the age of the oldest, 0 once folded', async () => {
  expect(await gauges()).toEqual({ deltas: 0, age: 0 });
  if (engine !== 'postgres') return;
  const twoMinutesAgo = Date.now() - 120_000;
  await sql`insert into category_listing_delta (category_id, audience, delta, created_at) values (1, 'R', 1, ${twoMinutesAgo})`.execute(
    t.database.db,
  );
  // As the refresh function writes one: its transaction's start by the column's default.
  await sql`insert into category_listing_delta (category_id, audience, delta) values (1, 'B', -1)`.execute(t.database.db);
  const waiting = await gauges();
  expect(waiting.deltas).toBe(2);
  expect(waiting.age).toBeGreaterThanOrEqual(120);
  expect(waiting.age).toBeLessThan(180);
  await sql`delete from category_listing_delta`.execute(t.database.db);
  expect(await gauges()).toEqual({ deltas: 0, age: 0 });
});
