import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { ID_TABLES, INSERT_ORDER } from '../../src/demo/batch.js';
import { generateDataset } from '../../src/demo/catalogue-generator.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { seedDemo } from '../../src/demo/seed.js';
import { engine, migratedScratchDatabase } from '../helpers/test-app.js';

const opened: Array<{ database: DatabaseHandle; drop: () => Promise<void> }> = [];
afterEach(async () => {
  for (const { database, drop } of opened.splice(0)) {
    await database.close();
    await drop();
  }
});

async function freshDatabase(): Promise<DatabaseHandle> {
  const scratch = await migratedScratchDatabase();
  const database = createDatabase(scratch.url);
  opened.push({ database, drop: scratch.drop });
  await migrateToLatest(database);
  return database;
}

/** Row counts of every table the demo writes, and a fingerprint of the product and store rows. */
async function snapshot({ db }: DatabaseHandle) {
  const counts: Record<string, number> = {};
  for (const table of [...INSERT_ORDER, 'country', 'country_name'] as const) {
    counts[table] = Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  }
  const products = await db.selectFrom('product').selectAll().orderBy('id').execute();
  const stores = await db.selectFrom('web_store').selectAll().orderBy('code').execute();
  const fingerprint = createHash('sha256')
    .update(JSON.stringify([products, stores]))
    .digest('hex');
  return { counts, fingerprint };
}

describe(`seeding the demo data (${engine})`, () => {
  it('a second run changes nothing and keeps what an operator changed', async () => {
    const database = await freshDatabase();
    const first = await seedDemo(database, { now: Date.now() });
    await database.db.updateTable('web_store').set({ guest_discount_percent: 0, logged_in_discount_percent: 0 }).execute();
    await database.db.updateTable('product').set({ name: 'Renamed by an operator' }).where('code', '=', '1000020').execute();
    const before = await snapshot(database);
    const second = await seedDemo(database, { now: Date.now() });
    expect(second).toEqual(first);
    expect(await snapshot(database)).toEqual(before);
  });

  it('leaves an imported catalogue alone (and adds no demo users to it)', async () => {
    const database = await freshDatabase();
    const now = Date.now();
    await database.db
      .insertInto('product')
      .values({
        code: 'NAV-1',
        type: 'BOOK',
        name: 'Imported',
        shop_price_cents: 1000,
        vat_rate_percent: 9,
        availability: 'AVAILABLE',
        is_active: true,
        hidden_web: false,
        hidden_business: false,
        created_at: now,
        updated_at: now,
      })
      .execute();
    const report = await seedDemo(database, { now: Date.now() });
    expect(report).toMatchObject({
      products: 1,
      categories: 0,
      shops: 0,
      persons: 0,
      campaigns: 0,
      users: 0,
      salesHistory: 0,
      sessionActions: 0,
    });
    expect(report.countries).toBeGreaterThan(0);
    const stores = await database.db.selectFrom('web_store').select(['guest_discount_percent', 'logged_in_discount_percent']).execute();
    expect(stores.every((s) => s.guest_discount_percent === 0 && s.logged_in_discount_percent === 0)).toBe(true);
  });

  it('keeps the id sequences ahead of the demo rows, and other users in place', async () => {
    const database = await freshDatabase();
    const { db } = database;
    const now = Date.now();
    const existing = await db
      .insertInto('app_user')
      .values({
        email: 'mari@example.com',
        password_hash: null,
        email_verified: false,
        newsletter: false,
        language: 'et',
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await seedDemo(database, { now: Date.now() });
    // The user who had the demo email keeps it untouched, and gets no demo accounts.
    const mari = await db.selectFrom('app_user').selectAll().where('email', '=', 'mari@example.com').executeTakeFirstOrThrow();
    expect([mari.id, mari.password_hash, Boolean(mari.email_verified)]).toEqual([existing.id, null, false]);
    expect(await db.selectFrom('client_account').select('id').where('user_id', '=', mari.id).execute()).toEqual([]);
    // Ordinary inserts after the seed get fresh ids (PostgreSQL sequences were moved past the demo rows).
    const publisher = await db
      .insertInto('publisher')
      .values({ code: 'NEW', name: 'New', created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    const user = await db
      .insertInto('app_user')
      .values({
        email: 'new@example.ee',
        password_hash: null,
        email_verified: false,
        newsletter: false,
        language: 'et',
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (const [table, id] of [
      ['publisher', publisher.id],
      ['app_user', user.id],
    ] as const) {
      const max = await db
        .selectFrom(table)
        .select((eb) => eb.fn.max<number>('id').as('max'))
        .executeTakeFirstOrThrow();
      expect(Number(id)).toBe(Number(max.max));
    }
  });
});

describe('the dataset generator', () => {
  const ids = Object.fromEntries(ID_TABLES.map((table) => [table, 1])) as Record<(typeof ID_TABLES)[number], number>;
  const digest = (seed: number) => {
    const hash = createHash('sha256');
    for (const [batch] of generateDataset({ products: 500, now: Date.UTC(2026, 10, 22), passwordHash: 'x', seed }, ids, new Set()))
      hash.update(JSON.stringify(batch));
    return hash.digest('hex');
  };

  it('is deterministic for a seed, and another seed gives another shop', () => {
    expect(digest(7)).toBe(digest(7));
    expect(digest(8)).not.toBe(digest(7));
  });
});
