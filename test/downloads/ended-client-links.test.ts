import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCustomer, createEmployee } from '../helpers/customers.js';
import { expectErrorBody } from '../helpers/http.js';
import { buy, createDownloadWorld, downloads, get, linkPath, upload, type DownloadWorld } from './helpers.js';

// A signed link works without a bearer token until it expires, but it is its client's: an erasure
// (DELETE /client-account) or a company's removal of the employee ends the account's sessions, and
// a link made just before must not go on serving the file (and counting downloads) for that account.

let world: DownloadWorld;
const epub = randomBytes(2_000);

beforeAll(async () => {
  world = await createDownloadWorld({ DOWNLOAD_LINK_TTL: '1h' });
  expect((await upload(world, world.ebooks[0]!.code, 'EPUB', epub)).statusCode).toBe(200);
});
afterAll(async () => world?.close());

const usedDownloads = async (orderId: number) =>
  (await world.t.database.db.selectFrom('download_count').select('used').where('order_id', '=', orderId).executeTakeFirst())?.used;

describe('a link of a client that is no longer one', () => {
  it('is a 403 once the client erased their data, and counts nothing', async () => {
    const [item] = await downloads(world, world.customer);
    const path = await linkPath(world, world.customer, item!.id);
    // Delivered: an open order would refuse the erasure.
    await world.t.database.db.updateTable('customer_order').set({ status: 'COMPLETED' }).where('id', '=', world.orderId).execute();
    const erased = await world.t.app.inject({
      method: 'DELETE',
      url: '/client-account',
      headers: { store: 'WEB', authorization: `Bearer ${world.customer.bearer}` },
      payload: {},
    });
    expect(erased.statusCode, erased.body).toBe(204);
    expectErrorBody(await get(world, path, {}, { 'x-app-language': 'en' }), 403, 'Forbidden');
    expect(await usedDownloads(world.orderId)).toBeUndefined();
  });

  it("is a 403 once the company removed the employee, while a colleague's link still works", async () => {
    const db = world.t.database.db;
    const master = await createCustomer(db, { kind: 'BUSINESS' });
    const employee = await createEmployee(db, master);
    const colleague = await createEmployee(db, master);
    const courier = await db.selectFrom('delivery_method').select('id').where('code', '=', 'EMAIL').executeTakeFirstOrThrow();
    const book = world.ebooks[0]!.id;
    const [employeeOrder, colleagueOrder] = [
      await buy(world.t, { bearer: employee.token }, [book], Number(courier.id)),
      await buy(world.t, { bearer: colleague.token }, [book], Number(courier.id)),
    ];
    const [item] = await downloads(world, { bearer: employee.token });
    const path = await linkPath(world, { bearer: employee.token }, item!.id);
    const [colleagueItem] = await downloads(world, { bearer: colleague.token });
    const colleaguePath = await linkPath(world, { bearer: colleague.token }, colleagueItem!.id);

    const removed = await world.t.app.inject({
      method: 'DELETE',
      url: `/company-user/${employee.clientAccountId}`,
      headers: { store: 'WEB', authorization: `Bearer ${master.token}` },
    });
    expect(removed.statusCode, removed.body).toBe(200);
    expectErrorBody(await get(world, path, {}, { 'x-app-language': 'en' }), 403, 'Forbidden');
    expect(await usedDownloads(employeeOrder)).toBeUndefined();

    const served = await get(world, colleaguePath);
    expect(served.statusCode).toBe(200);
    expect(served.rawPayload.equals(epub)).toBe(true);
    expect(Number(await usedDownloads(colleagueOrder))).toBe(1);
  });
});
