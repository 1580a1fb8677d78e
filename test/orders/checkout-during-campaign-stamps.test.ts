import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importKinds } from '../../src/import-kinds.js';
import { systemClock } from '../../src/infra/clock.js';
import { lockWaiters, until } from '../helpers/lock-waits.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';
import { checkout, checkoutForm, fill, setUpShop, stockedBook, type Shop } from './helpers.js';

// A campaign's product stamps are jobs (catalogue-import's campaigns.jobs.ts), each one UPDATE of up
// to 1,000 products. A checkout holds its products' stock in product id order, as every writer of
// several product rows must (orders' stock.repository.ts), so two never each hold a row the other
// waits for. An UPDATE ... WHERE id IN (...) locks its rows in the order its plan meets them, on a
// small table the heap's, which is not the ids' once a row was updated (its new version is written
// after the others): the stamp job took B, waited on X (here held by the test, as any write of it
// holds it), then wanted A, which a checkout of A and B held while it waited for B: PostgreSQL
// ended the checkout (deadlock detected), a 500 for the shopper.

let t: TestApp;
let shop: Shop;
let dir: string;

beforeAll(async () => {
  t = await createTestApp({ env: { TEST_GATEWAY: 'on' } });
  dir = mkdtempSync(join(tmpdir(), 'checkout-stamps-'));
  if (engine === 'postgres') shop = await setUpShop(t);
});
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Whether another transaction holds the product's row (a lock probe that does not wait). */
async function lockedByOthers(id: number): Promise<boolean> {
  try {
    await t.database.db.transaction().execute((trx) => sql`select id from product where id = ${id} for no key update nowait`.execute(trx));
    return false;
  } catch (error) {
    if ((error as { code?: string }).code === '55P03') return true;
    throw error;
  }
}

const codeOf = async (id: number) =>
  (await t.database.db.selectFrom('product').select('code').where('id', '=', id).executeTakeFirstOrThrow()).code;

describe.skipIf(engine !== 'postgres')('a checkout while a campaign stamp job runs', () => {
  it('is not ended on a deadlock: the job takes its products in id order', async () => {
    const db = t.database.db;
    const a = await stockedBook(t, shop, 5);
    const b = await stockedBook(t, shop, 5);
    const x = await stockedBook(t, shop, 5);
    expect(a < b && b < x).toBe(true);
    // A's row rewritten (an indexed column): its live version now lies after B's and X's in the heap.
    await sql`update product set updated_at = updated_at + 1 where id = ${a}`.execute(db);
    const file = join(dir, 'campaign.ndjson');
    const prices = await Promise.all([a, b, x].map(async (id) => ({ product: await codeOf(id), customerKind: 'RETAIL', price: 5 })));
    writeFileSync(file, JSON.stringify({ code: 'STAMP-ORDER', store: 'WEB', names: { et: 'Kampaania' }, prices }) + '\n');
    expect(
      (await importKinds.campaigns!.create({ db, clock: systemClock, log: t.app.log }, { force: false })(file, () => {})).outcomes,
    ).toEqual({
      created: 1,
    });
    const who = await fill(t, {}, [
      [a, 1],
      [b, 1],
    ]);

    const hold = await db.startTransaction().execute();
    let drained: Promise<number> | undefined;
    let answer: Awaited<ReturnType<typeof checkout>> | undefined;
    let request: Promise<void> | undefined;
    try {
      await sql`select id from product where id = ${x} for no key update`.execute(hold);
      drained = t.drainJobs();
      await until('the stamp job to wait on X', async () => (await lockWaiters(db)) >= 1);
      // The job holds what it took before X: A too (lower id than B), or the checkout below deadlocks.
      expect(await lockedByOthers(b)).toBe(true);
      expect(await lockedByOthers(a)).toBe(true);
      request = checkout(t, who, checkoutForm(shop)).then((response) => {
        answer = response;
      });
      await until('the checkout to wait on the job', async () => answer !== undefined || (await lockWaiters(db)) >= 2);
      await hold.commit().execute();
    } catch (error) {
      await hold.rollback().execute();
      throw error;
    }
    await request;
    await drained;
    expect(answer!.statusCode, answer!.body).toBe(200);
    const stamps = await db.selectFrom('job').select('status').where('type', '=', 'catalogue-import.campaign-stamps').execute();
    expect(stamps.map((job) => job.status)).toEqual(['done']);
  }, 60_000);
});
