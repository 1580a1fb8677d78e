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

// A campaign line is open for seconds at many prices. Every writer of what a basket's price is
// made of bumps the one 'price' row of catalogue_reference_version (migration 2026_11_27_1300; at
// its commit since 2026_12_12_1110, test/import/campaign-stamp-locks.test.ts). A checkout writes
// none of those (it holds stock: reserved_quantity), so a checkout of a product the campaign prices
// must not wait for the line; nor must the campaign line hold the product's row (its stamps are
// jobs, campaigns.jobs.ts). The line is held here by a product it prices after the bought one.

let t: TestApp;
let shop: Shop;
let dir: string;

beforeAll(async () => {
  t = await createTestApp({ env: { TEST_GATEWAY: 'on' } });
  dir = mkdtempSync(join(tmpdir(), 'checkout-campaign-'));
  if (engine === 'postgres') shop = await setUpShop(t);
});
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

const codeOf = async (id: number) =>
  (await t.database.db.selectFrom('product').select('code').where('id', '=', id).executeTakeFirstOrThrow()).code;

describe.skipIf(engine !== 'postgres')('a checkout while a campaign line is open', () => {
  it('does not wait for the line', async () => {
    const db = t.database.db;
    const bought = await stockedBook(t, shop, 5);
    const holder = await stockedBook(t, shop, 5);
    const who = await fill(t, {}, [[bought, 1]]);
    const file = join(dir, 'campaign.ndjson');
    const line = {
      code: 'HELD-LINE',
      store: 'WEB',
      names: { et: 'Kampaania' },
      prices: [
        { product: await codeOf(bought), customerKind: 'RETAIL', price: 5 },
        { product: await codeOf(holder), customerKind: 'RETAIL', price: 5 },
      ],
    };
    writeFileSync(file, JSON.stringify(line) + '\n');

    const hold = await db.startTransaction().execute();
    let campaignRun: Promise<unknown> | undefined;
    let checkoutDone = false;
    let checkoutWaited = false;
    let answer: Awaited<ReturnType<typeof checkout>> | undefined;
    try {
      // Its price row's key (campaign_price's foreign key) waits on this: the line has written the
      // campaign and the bought product's price, and stays open.
      await sql`select id from product where id = ${holder} for update`.execute(hold);
      campaignRun = importKinds.campaigns!.create({ db, clock: systemClock, log: t.app.log }, { force: false })(file, () => {});
      await until('the campaign line to wait on the held product', async () => (await lockWaiters(db)) >= 1);
      const request = checkout(t, who, checkoutForm(shop)).then((response) => {
        answer = response;
        checkoutDone = true;
      });
      await until('the checkout to end or wait on a lock', async () => {
        if (checkoutDone) return true;
        checkoutWaited = (await lockWaiters(db)) >= 2;
        return checkoutWaited;
      });
      await hold.commit().execute();
      await request;
    } catch (error) {
      await hold.rollback().execute();
      throw error;
    }
    await campaignRun;
    expect(checkoutWaited).toBe(false);
    expect(answer!.statusCode, answer!.body).toBe(200);
  }, 60_000);
});
