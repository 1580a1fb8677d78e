import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import * as createStoreListing from '../../src/db/migrations/2026_12_09_1010_create_store_listing.js';
import { createProduct } from '../helpers/catalogue.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';

// Migration 1010 builds store_listing from the products there and then puts the triggers on product that keep
// it. On PostgreSQL the service may be writing meanwhile (a running release, an import): a product change
// committed after the build read product, and before the triggers were there, was in no row, and nothing
// makes the list stale, so the product stayed listed (or missing) until it was written again. Migrations run
// in one transaction (Kysely's Migrator), as here. SQLite has one writer at a time: only PostgreSQL is asked.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

it.runIf(engine === 'postgres')('a product hidden while the migration builds the list is not listed after it', async () => {
  const db = t.database.db;
  const id = await createProduct(db, { stores: ['WEB'] });
  await createStoreListing.down(db);
  // A writer hides the product and has not committed yet when the migration starts.
  let commit!: () => void;
  const committed = new Promise<void>((resolve) => (commit = resolve));
  let written!: () => void;
  const wrote = new Promise<void>((resolve) => (written = resolve));
  const writer = db.transaction().execute(async (trx) => {
    await trx.updateTable('product').set({ hidden_web: true }).where('id', '=', id).execute();
    written();
    await committed;
  });
  await wrote;
  const migration = db.transaction().execute((trx) => createStoreListing.up(trx));
  // The migration waits for the writer somewhere (its build, or its triggers' lock on product): then it commits.
  for (let tries = 0; tries < 100; tries++) {
    const waiting = await sql<{
      n: number;
    }>`select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`.execute(db);
    if (Number(waiting.rows[0]?.n) > 0) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  commit();
  await writer;
  await migration;
  const res = await t.app.inject({ method: 'GET', url: '/product?per-page=100', headers: { store: 'WEB' } });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json().map((item: { id: number }) => item.id)).not.toContain(id);
  const total = await db
    .selectFrom('product as p')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('p.is_active', '=', true)
    .where('p.hidden_web', '=', false)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('product_store as ps')
          .select('ps.product_id')
          .whereRef('ps.product_id', '=', 'p.id')
          .where('ps.store_code', '=', 'WEB'),
      ),
    )
    .executeTakeFirstOrThrow();
  expect(res.headers['x-pagination-total-count']).toBe(String(total.n));
});
