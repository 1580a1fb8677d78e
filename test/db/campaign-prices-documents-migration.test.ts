import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { documentBody } from '../../src/db/migrations/2026_11_24_1600_create_product_document.js';
import { down, up } from '../../src/db/migrations/2026_12_13_1500_campaign_prices_leave_documents.js';
import { insertProduct, T0 } from '../data-export/fixtures.js';
import { lockWaiters, until } from '../helpers/lock-waits.js';
import { engine } from '../helpers/test-app.js';
import { createImportTestApp, type ImportTestApp } from '../import/helpers.js';
import { copiesOfProduct } from '../helpers/catalogue.js';

// Migration 2026_12_13_1500's down gives the release before, which reads a product page's campaign
// prices from the document's `cp`, exact documents: a campaign written since the up (whose jobs no
// worker of this build ran yet) is in them after it. It rebuilt every product's document with
// product_document_refresh, which takes the product's advisory lock until the migration commits: one
// lock a product, and PostgreSQL's shared lock table holds about max_locks_per_transaction ×
// max_connections of them for every session together (64 × 100 by default: 15,000 advisory locks in one
// transaction fail there with "out of shared memory", and while it fills, every other session's locks
// fail alike). And a campaign line in flight while it ran (its rows written through the up's functions,
// which refresh nothing) committed after the down's read: its prices stayed out of the documents.

const PRODUCTS = 300;
let t: ImportTestApp;
let ids: number[];
const code = (i: number) => `MD-${String(i).padStart(4, '0')}`;
const db = () => t.database.db;

beforeAll(async () => {
  t = await createImportTestApp();
  if (engine !== 'postgres') return;
  const template = await insertProduct(db(), { code: code(0), createdAt: T0 });
  const copies = await copiesOfProduct(db(), template, PRODUCTS - 1, 'MD-');
  ids = [template, ...copies];
}, 60_000);
// Each test runs the down: the up again after it, failed or not.
afterEach(async () => {
  if (engine === 'postgres') await up(db());
});
afterAll(async () => {
  await t?.close();
});

const campaign = (campaignCode: string, price: number) => ({
  code: campaignCode,
  store: 'WEB',
  names: { et: 'Kampaania' },
  prices: ids.map((_, i) => ({ product: code(i), customerKind: 'RETAIL', price })),
});

/** Products whose document's campaign prices are not what campaign_price holds now. */
async function staleDocuments(): Promise<number> {
  const { rows } = await sql<{ kept: string; fresh: string }>`
    select d.body as kept, ${sql.raw(documentBody(true))} as fresh
    from product p join product_document d on d.product_id = p.id`.execute(db());
  return rows.filter((row) => JSON.stringify(JSON.parse(row.kept).cp) !== JSON.stringify(JSON.parse(row.fresh).cp)).length;
}

/** The migration's down in a transaction of its own, as the Migrator runs it; the advisory locks it held at its end. */
async function migrateDown(): Promise<number> {
  return db()
    .transaction()
    .execute(async (trx) => {
      await down(trx);
      const { rows } = await sql<{ n: string }>`
        select count(*) as n from pg_locks where locktype = 'advisory' and pid = pg_backend_pid()`.execute(trx);
      return Number(rows[0]!.n);
    });
}

describe.skipIf(engine !== 'postgres')("migration 2026_12_13_1500's down", () => {
  it('brings back the campaign prices of every document, holding no lock per product', async () => {
    expect((await t.run('campaigns', [campaign('MD-FIRST', 5)])).outcomes).toEqual({ created: 1 });
    // The jobs not run: the documents do not hold the campaign.
    expect(await staleDocuments()).toBe(PRODUCTS);
    expect(await migrateDown()).toBe(0);
    expect(await staleDocuments()).toBe(0);
  }, 60_000);

  it('a campaign line in flight: the down waits for it, and its prices are in the documents', async () => {
    // The line has written its prices (through the up's functions) and stays open at its jobs.
    const hold = await db().startTransaction().execute();
    let line: Promise<unknown> | undefined;
    let migrating: Promise<number> | undefined;
    try {
      await sql`lock table job in share mode`.execute(hold);
      line = t.run('campaigns', [campaign('MD-SECOND', 3)]);
      line.catch(() => {});
      await until('the campaign line to wait on the job table', async () => (await lockWaiters(db())) >= 1);
      let done = false;
      migrating = migrateDown();
      migrating.then(
        () => (done = true),
        () => (done = true),
      );
      await until('the down to end or wait for the line', async () => done || (await lockWaiters(db())) >= 2);
    } finally {
      await hold.commit().execute();
    }
    const [summary] = await Promise.all([line, migrating]);
    expect((summary as { outcomes: unknown }).outcomes).toEqual({ created: 1 });
    expect(await staleDocuments()).toBe(0);
  }, 60_000);
});
