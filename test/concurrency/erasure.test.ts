import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askBackInStock } from '../back-in-stock/helpers.js';
import { duringErasure } from '../gdpr/erasure-helpers.js';
import { call } from '../basket/helpers.js';
import { createCategory, createProduct } from '../helpers/catalogue.js';
import { postComment, rate } from '../helpers/catalogue-comments.js';
import { createCustomer, type TestCustomer, SHIPPING_ADDRESS } from '../helpers/customers.js';
import { expectErrorBody } from '../helpers/http.js';
import { lockWaiters, until } from '../helpers/lock-waits.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';
import { checkout, checkoutForm, fill, setUpShop, stockedBook, type Shop } from '../orders/helpers.js';
import { as } from '../profile/helpers.js';

// The erasure (DELETE /client-account) and the same client's writes of personal data at once. Each
// pair ends as one of them alone, then the other, would: a write before the erasure is erased with
// the rest (or, an open order, refuses it); a write after it is a 401, as the erased token would
// answer. Nothing outlives the erasure, and nothing is a 500 (a deadlock). On PostgreSQL they run at
// once; SQLite runs them one after the other.

let t: TestApp;
let shop: Shop;
let book: number;
let soldOut: number;
let category: number;
beforeAll(async () => {
  t = await createTestApp({
    env: {
      BACK_IN_STOCK_RATE_LIMIT_PER_IP: '100000/1h',
      BACK_IN_STOCK_RATE_LIMIT_PER_EMAIL: '100000/1h',
    },
  });
  shop = await setUpShop(t);
  book = await stockedBook(t, shop, 10_000);
  category = await createCategory(t.database.db, { et: 'Ajalugu', en: 'History' }, { code: 'HISTORY' });
  soldOut = await createProduct(t.database.db, {
    name: 'Läbi müüdud',
    availability: 'TEMPORARILY_OUT_OF_STOCK',
  });
});
afterAll(async () => t?.close());

const ROUNDS = 5;

const ADDRESS = SHIPPING_ADDRESS;

/** The client's erasure through HTTP (a client without a password, signed in just now). */
const erase = (client: TestCustomer) => as(t, client.token)('DELETE', '/client-account', {});

const status = async (client: TestCustomer) =>
  (await t.database.db.selectFrom('client_account').select('status').where('id', '=', client.clientAccountId).executeTakeFirstOrThrow())
    .status;

/** The client's rows of one kind of personal data, counted after both requests. */
type Rows = (client: TestCustomer) => Promise<number>;
const count = (
  table:
    | 'client_address'
    | 'client_category_preference'
    | 'product_comment'
    | 'product_rating'
    | 'wishlist_item'
    | 'back_in_stock_request'
    | 'basket',
): Rows => {
  return async (client) => {
    const row = await t.database.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('client_account_id', '=', client.clientAccountId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };
};

interface Writer {
  name: string;
  prepare?: (client: TestCustomer) => Promise<void>;
  write: (client: TestCustomer) => Promise<LightMyRequestResponse>;
  ok: number;
  rows: Rows;
}

const writers: Writer[] = [
  {
    name: 'POST /client-account/address',
    write: (client) => as(t, client.token)('POST', '/client-account/address', ADDRESS),
    ok: 201,
    rows: count('client_address'),
  },
  {
    name: 'PUT /client-account',
    write: (client) => as(t, client.token)('PUT', '/client-account', { phone: '+372 5123 4567' }),
    ok: 200,
    rows: async (client) => {
      const user = await t.database.db
        .selectFrom('app_user')
        .innerJoin('client_account', 'client_account.user_id', 'app_user.id')
        .select('app_user.phone')
        .where('client_account.id', '=', client.clientAccountId)
        .executeTakeFirstOrThrow();
      return user.phone === null ? 0 : 1;
    },
  },
  {
    name: 'PUT /category-preference',
    write: (client) => as(t, client.token)('PUT', '/category-preference', { categories: [category] }),
    ok: 200,
    rows: count('client_category_preference'),
  },
  {
    name: 'PUT /user/me (a new email)',
    write: (client) => as(t, client.token)('PUT', '/user/me', { email: `new-${client.clientCode.toLowerCase()}@example.ee` }),
    ok: 200,
    rows: async (client) => {
      const changes = await t.database.db
        .selectFrom('email_change')
        .innerJoin('client_account', 'client_account.user_id', 'email_change.user_id')
        .select('email_change.new_email')
        .where('client_account.id', '=', client.clientAccountId)
        .execute();
      return changes.length;
    },
  },
  {
    name: 'POST /product/{id}/comment (rated)',
    write: (client) => postComment(t, client.token, book, { body: 'Hea raamat', rating: 4 }, { store: 'WEB' }),
    ok: 201,
    rows: count('product_comment'),
  },
  {
    name: 'PUT /product/{id}/rating',
    write: (client) => rate(t, client.token, book, { rating: 5 }, { store: 'WEB' }),
    ok: 200,
    rows: count('product_rating'),
  },
  {
    name: 'POST /wishlist',
    write: (client) => as(t, client.token)('POST', '/wishlist', { productId: book }),
    ok: 201,
    rows: count('wishlist_item'),
  },
  {
    name: 'POST /back-in-stock',
    write: (client) => askBackInStock(t, { productId: soldOut }, { authorization: `Bearer ${client.token}`, store: 'WEB' }),
    ok: 201,
    rows: count('back_in_stock_request'),
  },
  {
    name: 'POST /basket/add-product',
    write: (client) => call(t, 'POST', '/basket/add-product', { bearer: client.token }, { productId: book, quantity: 1 }),
    ok: 200,
    rows: count('basket'),
  },
];

describe.each(writers)('the erasure and $name at once', (writer) => {
  it('while the erasure is open, the write waits for it and is a 401; none of its rows is left', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const client = await createCustomer(t.database.db);
      const written = await duringErasure(t, client, () => writer.write(client));
      expectErrorBody(written, 401, 'Unauthorized');
      expect(await writer.rows(client)).toBe(0);
    }
  });

  it('sent together, either order ends with nothing of the client left and no 500', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const client = await createCustomer(t.database.db);
      const [erased, written] = await Promise.all([erase(client), writer.write(client)]);
      expect(erased.statusCode, erased.body).toBe(204);
      expect([writer.ok, 401], written.body).toContain(written.statusCode);
      expect(await writer.rows(client)).toBe(0);
    }
  });
});

describe('the erasure and a checkout (cash on delivery) at once', () => {
  const placeOrder = (client: TestCustomer) =>
    checkout(t, { bearer: client.token }, { ...checkoutForm(shop), paymentMethodId: 'CASH_ON_DELIVERY' });

  it('ends as one of them first: the order and a 409, or the erasure and a 401; never both, never a 500', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const client = await createCustomer(t.database.db);
      await fill(t, { bearer: client.token }, [[book, 1]]);
      const [erased, placed] = await Promise.all([erase(client), placeOrder(client)]);
      const orders = await t.database.db
        .selectFrom('customer_order')
        .select('shipping_name')
        .where('client_account_id', '=', client.clientAccountId)
        .execute();
      if (placed.statusCode === 200) {
        expectErrorBody(erased, 409, 'Conflict');
        expect(await status(client)).toBe('ACTIVE');
        expect(orders.map((order) => order.shipping_name)).toEqual(['Mari Maasikas']);
      } else {
        expect(erased.statusCode, erased.body).toBe(204);
        expectErrorBody(placed, 401, 'Unauthorized');
        expect(orders).toEqual([]);
      }
    }
  });
});

describe('the erasure and a basket writer holding the basket', () => {
  it.runIf(engine === 'postgres')(
    'waits for the basket before it touches the lines, as every basket writer takes them: no deadlock, both commit',
    async () => {
      const db = t.database.db;
      for (let round = 0; round < 3; round++) {
        const client = await createCustomer(db);
        await fill(t, { bearer: client.token }, [[book, 1]]);
        const basket = await db
          .selectFrom('basket')
          .select('id')
          .where('client_account_id', '=', client.clientAccountId)
          .executeTakeFirstOrThrow();
        let erasing!: Promise<LightMyRequestResponse>;
        // A writer's order (the basket's lock, then its lines), with the erasure started in between.
        await db.transaction().execute(async (trx) => {
          await trx.selectFrom('basket').select('id').where('id', '=', basket.id).forUpdate().execute();
          erasing = erase(client);
          await until('the erasure to wait on the basket', async () => (await lockWaiters(db)) >= 1);
          await trx.updateTable('basket_line').set({ quantity: 2 }).where('basket_id', '=', basket.id).execute();
        });
        expect((await erasing).statusCode, (await erasing).body).toBe(204);
        expect(await db.selectFrom('basket_line').select('product_id').where('basket_id', '=', basket.id).execute()).toEqual([]);
      }
    },
  );
});
