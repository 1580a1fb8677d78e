import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { lockWaiters, until } from '../helpers/lock-waits.js';
import { startS3Server, type S3Server } from '../helpers/s3-server.js';
import { startHoldingS3Proxy, type HoldingS3Proxy } from './holding-s3-proxy.js';
import { engine } from '../helpers/test-app.js';
import { createDownloadWorld, get, strangersGuestOrder, type DownloadItem, type DownloadWorld } from './helpers.js';

// A guest order's download and the erasure of its buyer at once. A download reads its order twice: once to
// open the bytes (a transaction rolled back), once to count it; the erasure strips the order's billing email,
// after which its files serve nothing (erased-guest-downloads.test.ts). Either the erasure comes first and the
// download is refused, or the erasure waits for the download's count: never a download counted and served
// after the erasure committed. A proxy in front of the local S3 server holds the bytes' opening, between the
// two reads. On PostgreSQL the erasure then runs while the count waits (download_link_use held in share
// mode); SQLite runs one transaction at a time: there the erasure runs between the two reads.

let s3: S3Server;
let proxy: HoldingS3Proxy;
let world: DownloadWorld;
let code: string;
let query: string;
let item: DownloadItem;

beforeAll(async () => {
  s3 = await startS3Server();
  proxy = await startHoldingS3Proxy(s3.endpoint);
  world = await createDownloadWorld({ ...s3.env, FILE_STORE_S3_ENDPOINT: proxy.endpoint });
  const db = world.t.database.db;
  const bought = await strangersGuestOrder(world);
  ({ code, query, item } = bought);
  // Delivered (the back office completed it): an open order would refuse the erasure.
  await db.updateTable('customer_order').set({ status: 'COMPLETED' }).where('id', '=', bought.orderId).execute();
});
afterAll(async () => {
  proxy?.release();
  await world?.close();
  await proxy?.close();
  await s3?.close();
});

/** The downloads the guest order's purchase has counted. */
async function used(): Promise<number> {
  const db = world.t.database.db;
  const row = await db
    .selectFrom('download_count as c')
    .innerJoin('customer_order as o', 'o.id', 'c.order_id')
    .select('c.used')
    .where('o.code', '=', code)
    .executeTakeFirst();
  return Number(row?.used ?? 0);
}

it("a guest order's download is refused, or counted before its buyer's erasure commits", async () => {
  const db = world.t.database.db;
  const link = await get(world, `/order/${code}/download/${item.id}/link${query}`);
  expect(link.statusCode, link.body).toBe(200);
  const path = new URL((link.json() as { url: string }).url).pathname;

  const seen = proxy.holdNextRead();
  const download = get(world, path);
  await seen;
  let erasureDone = false;
  const erase = () => {
    const erasure = world.t.app.inject({
      method: 'DELETE',
      url: '/client-account',
      headers: { authorization: `Bearer ${world.stranger.bearer}`, store: 'WEB' },
      payload: {},
    });
    void erasure.then(() => (erasureDone = true));
    return erasure;
  };
  let erasure: ReturnType<typeof erase>;
  let erasedBeforeCount = false;
  if (engine === 'postgres') {
    await db.transaction().execute(async (trx) => {
      await sql`lock table download_link_use in share mode`.execute(trx);
      proxy.release();
      await until('the download to wait to count', async () => (await lockWaiters(db)) >= 1);
      erasure = erase();
      // The erasure either ends (nothing made it wait for the download) or waits on the download's lock.
      await until('the erasure to end or wait', async () => erasureDone || (await lockWaiters(db)) >= 2);
      erasedBeforeCount = erasureDone;
    });
  } else {
    erasure = erase();
    await erasure;
    erasedBeforeCount = true;
    proxy.release();
  }
  const answer = await download;
  const erased = await erasure!;
  expect(erased.statusCode, erased.body).toBeLessThan(300);
  if (erasedBeforeCount) {
    expect(answer.statusCode, 'a download counted after the erasure committed').toBe(403);
    expect(await used()).toBe(0);
  } else {
    expect(answer.statusCode, answer.body).toBe(200);
    expect(await used()).toBe(1);
  }
  const order = await db.selectFrom('customer_order').select('billing_email').where('code', '=', code).executeTakeFirstOrThrow();
  expect(order.billing_email).toMatch(/@erased\.invalid$/);
});
