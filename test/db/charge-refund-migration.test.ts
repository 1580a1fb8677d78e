import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import * as chargeRefund from '../../src/db/migrations/2026_12_11_1200_create_subscription_charge_refund.js';
import * as oldReleaseWrites from '../../src/db/migrations/2026_12_11_2200_book_old_release_charge_writes.js';
import { subscriptionStats } from '../../src/modules/subscriptions/index.js';
import { engine, migratedScratchDatabase } from '../helpers/test-app.js';

// Migration 2026_12_11_1200: subscription charges written before it have no settled_at and their refunds no rows of
// their own. Up gives a settled charge the time the stats booked it by (its updated_at) and each charge's
// refunded_cents one row of kind `unknown` at that time, so `subscription stats` reads the months reported before
// as they were: a settled charge's part refund off its own month, a charge refunded since counted nowhere.

let database: DatabaseHandle;
let drop: () => Promise<void>;

beforeAll(async () => {
  const scratch = await migratedScratchDatabase(true);
  drop = scratch.drop;
  database = createDatabase(scratch.url);
  await migrateToLatest(database);
});
afterAll(async () => {
  await database?.close();
  await drop?.();
});

const OCT = Date.UTC(2026, 9, 15);
const NOV = Date.UTC(2026, 10, 15);

describe(`migration 2026_12_11_1200_create_subscription_charge_refund on ${engine}`, () => {
  it('books earlier charges and their refunds as the stats booked them before', async () => {
    const db = database.db;
    // Back to the schema before 1200, as `migrate down` goes: 2200's triggers name its columns.
    await oldReleaseWrites.down(db);
    await chargeRefund.down(db);
    // As the build before wrote them: settled in October, refunded 200 in part; settled in November; refunded whole
    // (taken back) in November; settled for nothing and refunded.
    let n = 0;
    for (const [state, refunded, updated] of [
      ['settled', 200, OCT],
      ['settled', 0, NOV],
      ['refunded', 750, NOV],
      ['refunded', 0, NOV],
    ] as const) {
      n += 1;
      // The row as that build wrote it: no settled_at (the column is gone after down).
      await sql`
        insert into subscription_charge (subscription_id, period_number, purpose, attempt, plan_id, amount_cents, gateway,
          order_reference, idempotency_key, state, refunded_cents, created_at, updated_at)
        values (${9000 + n}, 1, 'PERIOD', 1, 1, 750, 'everypay', ${`MIGR${n}`}, ${`key${n}`}, ${state}, ${refunded},
          ${updated - 1000}, ${updated})
      `.execute(db);
    }
    await chargeRefund.up(db);
    await oldReleaseWrites.up(db);

    const charges = await db.selectFrom('subscription_charge').select(['order_reference', 'settled_at']).orderBy('id').execute();
    expect(charges.map((c) => [c.order_reference, c.settled_at === null ? null : Number(c.settled_at)])).toEqual([
      ['MIGR1', OCT],
      ['MIGR2', NOV],
      ['MIGR3', null],
      ['MIGR4', null],
    ]);
    const refunds = await db
      .selectFrom('subscription_charge_refund as r')
      .innerJoin('subscription_charge as c', 'c.id', 'r.charge_id')
      .select(['c.order_reference', 'r.kind', 'r.amount_cents', 'r.refunded_at'])
      .orderBy('r.id')
      .execute();
    expect(refunds.map((r) => [r.order_reference, r.kind, r.amount_cents, Number(r.refunded_at)])).toEqual([
      ['MIGR1', 'unknown', 200, OCT],
      ['MIGR3', 'unknown', 750, NOV],
    ]);
    const months = await subscriptionStats(db);
    expect(months.map((m) => [m.month, m.revenue])).toEqual([
      ['2026-10', 5.5],
      ['2026-11', 7.5],
    ]);
  });
});
