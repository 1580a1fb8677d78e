import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { add, call, type Who } from '../basket/helpers.js';
import { EMAIL_DELIVERY_LINE, importLines } from '../basket/import-helpers.js';
import { createProduct } from '../helpers/catalogue.js';
import { createCustomer } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { payOnTestGateway } from '../orders/purchase-helpers.js';

// A shop with e-books, a customer who bought them through the real flow (basket, checkout paid on
// the test gateway's page, the shopper's return that settles it, the worker's processing that
// grants the entitlements), and an operator key to upload the books' files. (E-books sent by e-mail
// cannot be paid cash on delivery: nobody would collect it.)

export const LINK_SECRET = 'download-link-secret-for-the-tests-0123456789';

export interface DownloadWorld {
  t: TestApp;
  fileDir: string;
  operatorKey: string;
  customer: Who & { clientAccountId: number };
  stranger: Who & { clientAccountId: number };
  ebooks: Array<{ id: number; code: string }>;
  orderId: number;
  close(): Promise<void>;
}

export async function createDownloadWorld(env: Record<string, string> = {}, ebookCount = 1): Promise<DownloadWorld> {
  const fileDir = mkdtempSync(join(tmpdir(), 'storefront-files-'));
  const t = await createTestApp({
    // The test gateway's callback goes nowhere (the discard port): the shopper's return settles the payment.
    env: { FILE_STORE_DIR: fileDir, DOWNLOAD_LINK_SECRET: LINK_SECRET, TEST_GATEWAY: 'on', PUBLIC_URL: 'http://127.0.0.1:9', ...env },
  });
  const db = t.database.db;
  const ebooks: DownloadWorld['ebooks'] = [];
  for (let index = 0; index < ebookCount; index += 1) {
    const id = await createProduct(db, {
      name: `E-raamat ${index}`,
      type: 'EBOOK',
      binding: 'EPUB',
      deliveryTime: 'INSTANT_DOWNLOAD',
      price: 8,
    });
    const { code } = await db.selectFrom('product').select('code').where('id', '=', id).executeTakeFirstOrThrow();
    ebooks.push({ id, code });
  }
  const methods = await importLines(t, 'delivery-methods', [
    // A basket of e-books only is sent by e-mail.
    EMAIL_DELIVERY_LINE,
  ]);
  expect(methods.statusCode, methods.body).toBe(200);
  const courier = await db.selectFrom('delivery_method').select('id').where('code', '=', 'EMAIL').executeTakeFirstOrThrow();
  const a = await createCustomer(db);
  const b = await createCustomer(db);
  const customer = { bearer: a.token, clientAccountId: a.clientAccountId };
  const stranger = { bearer: b.token, clientAccountId: b.clientAccountId };
  const orderId = await buy(
    t,
    customer,
    ebooks.map((book) => book.id),
    Number(courier.id),
  );
  return {
    t,
    fileDir,
    operatorKey: await createApiKey(db, 'files', Date.now()),
    customer,
    stranger,
    ebooks,
    orderId,
    async close() {
      await t.close();
      rmSync(fileDir, { recursive: true, force: true });
    },
  };
}

/** Checks out the products, pays on the test gateway's page as a shopper does and runs the processing job. */
export async function buy(t: TestApp, who: Who, productIds: number[], courierId: number): Promise<number> {
  return (await buyWithLink(t, who, productIds, courierId)).orderId;
}

/** As buy, with the order's checksum from the payment link (a guest's way back to the order). */
export async function buyWithLink(
  t: TestApp,
  who: Who,
  productIds: number[],
  courierId: number,
): Promise<{ orderId: number; checksum: string }> {
  let token: string | undefined;
  for (const productId of productIds) token = (await add(t, { ...who, token }, productId, 1)).basketToken ?? token;
  const contact = (prefix: string) => ({
    [`${prefix}Name`]: 'Mari Maasikas',
    [`${prefix}Email`]: 'mari@example.ee',
    [`${prefix}Phone`]: '+372 5555 5555',
    [`${prefix}Address`]: 'Rüütli 2',
    [`${prefix}City`]: 'Tartu',
    [`${prefix}Postcode`]: '51007',
    [`${prefix}CountryNavCode`]: 'EE',
  });
  const checkout = await call(
    t,
    'POST',
    '/checkout',
    { ...who, token },
    {
      ...contact('shipping'),
      ...contact('billing'),
      deliveryMethodId: courierId,
      paymentMethodId: 'TEST_GATEWAY',
      termsAccepted: true,
    },
  );
  expect(checkout.statusCode, checkout.body).toBe(200);
  const location = new URL((checkout.json() as { location: string }).location);
  await payOnTestGateway(t, `${location.pathname}${location.search}`);
  await t.drainJobs();
  const orderId = Number(location.searchParams.get('orderId'));
  const entitled = await t.database.db.selectFrom('order_entitlement').select('product_id').where('order_id', '=', orderId).execute();
  expect(entitled).toHaveLength(productIds.length);
  return { orderId, checksum: location.searchParams.get('checksum')! };
}

/**
 * PUT /admin/product-files/{code}/{format} with the operator key; then, unless `holdJobs`, runs the job
 * it queued that gives the product's holders the new format's list item.
 */
export async function upload(world: DownloadWorld, code: string, format: string, body: Buffer, query = '', holdJobs = false) {
  const response = await world.t.app.inject({
    method: 'PUT',
    url: `/admin/product-files/${code}/${format}${query}`,
    headers: { authorization: `Bearer ${world.operatorKey}`, 'content-type': 'application/octet-stream' },
    payload: body,
  });
  if (response.statusCode === 200 && !holdJobs) await world.t.drainJobs();
  return response;
}

export interface DownloadItem {
  id: string;
  productId: number;
  format: string;
  size: number;
  contentType: string;
  downloadsUsed: number;
  downloadsAllowed: number;
}

export function get(world: DownloadWorld, url: string, who: Who = {}, headers: Record<string, string> = {}) {
  return world.t.app.inject({
    method: 'GET',
    url,
    headers: { ...headers, ...(who.bearer ? { authorization: `Bearer ${who.bearer}` } : {}) },
  });
}

/** The items of GET /download. */
export async function downloads(world: DownloadWorld, who: Who): Promise<DownloadItem[]> {
  const response = await get(world, '/download?per-page=100', who);
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as DownloadItem[];
}

/** The path of a fresh signed link to the item. */
export async function linkPath(world: DownloadWorld, who: Who, id: string): Promise<string> {
  const response = await get(world, `/download/${id}/link`, who);
  expect(response.statusCode, response.body).toBe(200);
  return new URL((response.json() as { url: string }).url).pathname;
}

/**
 * A guest order of the world's first e-book (its EPUB uploaded first), delivered by email and billed to the
 * stranger's login email (buyWithLink bills its orders to mari@example.ee), so that the order is the stranger's
 * in "your data" and in the erasure. Its id and code, the checksum query its download routes take, and its one item.
 */
export async function strangersGuestOrder(
  world: DownloadWorld,
): Promise<{ orderId: number; code: string; query: string; item: DownloadItem }> {
  const db = world.t.database.db;
  const [book] = world.ebooks;
  expect((await upload(world, book!.code, 'EPUB', randomBytes(5_000))).statusCode).toBe(200);
  const account = await db
    .selectFrom('client_account')
    .select('user_id')
    .where('id', '=', world.stranger.clientAccountId)
    .executeTakeFirstOrThrow();
  await db.updateTable('app_user').set({ email: 'mari@example.ee' }).where('id', '=', account.user_id).execute();
  const courier = await db.selectFrom('delivery_method').select('id').where('code', '=', 'EMAIL').executeTakeFirstOrThrow();
  const bought = await buyWithLink(world.t, {}, [book!.id], Number(courier.id));
  const code = (await db.selectFrom('customer_order').select('code').where('id', '=', bought.orderId).executeTakeFirstOrThrow()).code!;
  const query = `?checksum=${bought.checksum}`;
  const item = ((await get(world, `/order/${code}/download${query}`)).json() as DownloadItem[])[0]!;
  return { orderId: bought.orderId, code, query, item };
}
