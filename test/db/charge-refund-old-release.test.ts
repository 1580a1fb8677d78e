import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import type { Database } from '../../src/db/schema.js';
import * as oldReleaseWrites from '../../src/db/migrations/2026_12_11_2200_book_old_release_charge_writes.js';
import { subscriptionStats } from '../../src/modules/subscriptions/index.js';
import { engine, migratedScratchDatabase } from '../helpers/test-app.js';

// A process of the release before 2026_12_11_1200 (a rolling deploy, a worker not yet replaced) writes subscription
// charges with the statements below, its charges.repository.ts's: it names no settled_at and writes no
// subscription_charge_refund row. Migration 2026_12_11_2200's triggers book its writes as this build's code does, so
// `subscription stats` counts a charge it settled in the month it settled, and takes a refund or chargeback it
// recorded off the month it came in, and refunded_cents stays the sum of the charge's rows.

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

const OCT = Date.UTC(2025, 9, 15);
const NOV = Date.UTC(2025, 10, 15);
const monthOf = (ms: number) => new Date(ms).toISOString().slice(0, 7);

let n = 0;
/** A pending charge of 7.50 as the release before inserted it (no settled_at); its id. */
async function oldPendingCharge(db: Kysely<Database>, at: number): Promise<number> {
  n += 1;
  await sql`
    insert into subscription_charge (subscription_id, period_number, purpose, attempt, plan_id, amount_cents, gateway,
      order_reference, idempotency_key, state, refunded_cents, created_at, updated_at)
    values (${9100 + n}, 1, 'PERIOD', 1, 1, 750, 'everypay', ${`OLDREL${n}`}, ${`oldrel${n}`}, 'pending', 0, ${at}, ${at})
  `.execute(db);
  const row = await db.selectFrom('subscription_charge').select('id').where('order_reference', '=', `OLDREL${n}`).executeTakeFirstOrThrow();
  return Number(row.id);
}

// The release before's statements (finishCharge, moveCharge, recordRefunded).
const oldFinish = (db: Kysely<Database>, id: number, state: string, now: number) =>
  sql`update subscription_charge set state = ${state}, updated_at = ${now} where id = ${id} and state = 'pending'`.execute(db);
const oldMove = (db: Kysely<Database>, id: number, from: string, to: string, now: number) =>
  sql`update subscription_charge set state = ${to}, updated_at = ${now} where id = ${id} and state = ${from}`.execute(db);
const oldRecordRefunded = (db: Kysely<Database>, id: number, cents: number) =>
  sql`update subscription_charge set refunded_cents = ${cents} where id = ${id} and refunded_cents < ${cents}`.execute(db);

async function chargeOf(db: Kysely<Database>, id: number) {
  const charge = await db
    .selectFrom('subscription_charge')
    .select(['state', 'settled_at', 'refunded_cents'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  const rows = await db
    .selectFrom('subscription_charge_refund')
    .select(['kind', 'amount_cents', 'refunded_at'])
    .where('charge_id', '=', id)
    .orderBy('id')
    .execute();
  return {
    state: charge.state,
    settledAt: charge.settled_at === null ? null : Number(charge.settled_at),
    refundedCents: Number(charge.refunded_cents),
    rows: rows.map((r) => ({ kind: r.kind, amount: Number(r.amount_cents), month: monthOf(Number(r.refunded_at)) })),
  };
}

const revenueByMonth = async (db: Kysely<Database>) => new Map((await subscriptionStats(db)).map((m) => [m.month, m.revenue]));

describe(`subscription charges written by the release before 2026_12_11_1200 on ${engine}`, () => {
  it('a charge it settles is booked in its month, and its part refund and chargeback in the month they came', async () => {
    const db = database.db;
    const thisMonth = monthOf(Date.now());
    const before = await revenueByMonth(db);
    const id = await oldPendingCharge(db, OCT - 1000);
    await oldFinish(db, id, 'settled', OCT);
    expect(await chargeOf(db, id)).toEqual({ state: 'settled', settledAt: OCT, refundedCents: 0, rows: [] });

    await oldRecordRefunded(db, id, 200);
    await oldRecordRefunded(db, id, 200); // its callback repeated
    // Its chargeback: what the refunds came to, then the move (billing.apply.ts of that release).
    await oldRecordRefunded(db, id, 750);
    await oldMove(db, id, 'settled', 'refunded', Date.now());
    expect(await chargeOf(db, id)).toEqual({
      state: 'refunded',
      settledAt: OCT,
      refundedCents: 750,
      rows: [
        { kind: 'unknown', amount: 200, month: thisMonth },
        { kind: 'unknown', amount: 550, month: thisMonth },
      ],
    });
    const after = await revenueByMonth(db);
    expect(after.get(monthOf(OCT))).toBe((before.get(monthOf(OCT)) ?? 0) + 7.5);
    expect(Math.round((after.get(thisMonth) ?? 0) * 100)).toBe(Math.round((before.get(thisMonth) ?? 0) * 100) - 750);
  });

  it('money it took for nothing (settled, then refund_due in the same transaction) is no revenue', async () => {
    const db = database.db;
    const before = await revenueByMonth(db);
    const id = await oldPendingCharge(db, NOV - 1000);
    await db.transaction().execute(async (trx) => {
      await oldFinish(trx, id, 'settled', NOV);
      await oldMove(trx, id, 'settled', 'refund_due', NOV);
    });
    expect(await chargeOf(db, id)).toMatchObject({ state: 'refund_due', settledAt: null });
    await oldMove(db, id, 'refund_due', 'refunded', Date.now());
    expect(await revenueByMonth(db)).toEqual(before);
  });

  it('a late settle it applies (failed, then settled) is booked in the month of the settle', async () => {
    const db = database.db;
    const id = await oldPendingCharge(db, OCT);
    await oldFinish(db, id, 'failed', OCT);
    await oldMove(db, id, 'failed', 'settled', NOV);
    expect(await chargeOf(db, id)).toEqual({ state: 'settled', settledAt: NOV, refundedCents: 0, rows: [] });
  });

  it('what it wrote between 2026_12_11_1200 and the triggers is booked by 2200 as 1200 booked earlier rows', async () => {
    const db = database.db;
    await oldReleaseWrites.down(db);
    const id = await oldPendingCharge(db, OCT - 1000);
    await oldFinish(db, id, 'settled', OCT);
    await oldRecordRefunded(db, id, 200);
    await oldReleaseWrites.up(db);
    expect(await chargeOf(db, id)).toEqual({
      state: 'settled',
      settledAt: OCT,
      refundedCents: 200,
      rows: [{ kind: 'unknown', amount: 200, month: monthOf(OCT) }],
    });
  });
});
