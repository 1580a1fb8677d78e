import { SelectQueryNode, TableNode, type KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { codeKey, normaliseCode } from '../../src/modules/gift-cards/gift-card-code.js';
import { call } from '../basket/helpers.js';
import { createProduct } from '../helpers/catalogue.js';
import { card, dateIn, ledger, newCode } from '../gift-cards/helpers.js';
import { engine, type TestApp } from '../helpers/test-app.js';
import { wrappedDatabase } from '../helpers/wrapped-database.js';
import { checkout, checkoutForm, createListeningApp, fill, orderLink, setUpShop, stockedBook, type Shop } from './helpers.js';

// An order its gift card paid alone is refunded to that card, whole, and only while nothing of the
// gift card the order bought was spent (that would pay the spent part back). The bought card's
// recipient may spend it while the refund runs: the refund read "nothing spent", then cancelled the
// order, gave the paying card all of its share back and voided what was left of the bought card,
// so the part spent meanwhile was paid for by nobody. It is now a 409 that changes nothing.

let t: TestApp;
let shop: Shop;
/** Runs once, in the middle of the next refund: after its first read of the gift cards' ledger. */
let midRefund: (() => Promise<unknown>) | undefined;
const ledgerReads = new Set<string>();
const plugin: KyselyPlugin = {
  transformQuery({ node, queryId }) {
    const from = SelectQueryNode.is(node) ? node.from?.froms : undefined;
    if (midRefund && from?.some((item) => TableNode.is(item) && item.table.identifier.name === 'gift_card_entry'))
      ledgerReads.add(queryId.queryId);
    return node;
  },
  async transformResult({ result, queryId }) {
    if (ledgerReads.delete(queryId.queryId) && midRefund) {
      const run = midRefund;
      midRefund = undefined;
      await run();
    }
    return result;
  },
};

beforeAll(async () => {
  ({ t } = await createListeningApp({ wrapDatabase: (database) => wrappedDatabase(database, plugin, () => {}) }));
  shop = await setUpShop(t);
});
afterAll(async () => {
  await t?.close();
});
const db = () => t.database.db;

describe.runIf(engine === 'postgres')('a refund to the gift card while the card the order bought is spent', () => {
  it('is a 409 that changes nothing', async () => {
    const voucher = await createProduct(db(), { type: 'VIRTUAL_GIFT_CARD', name: 'Kinkekaart', price: 10, vatRate: 0 });
    const paying = await card(t, 10);
    // A 10.00 card bought and paid in full by the gift card `paying`.
    const buyer = { ip: '10.0.5.1' };
    const giftCard = { amount: 10, recipientName: 'Jaan Tamm', recipientEmail: 'jaan@example.ee', deliveryDate: dateIn(0) };
    const added = await call(t, 'POST', '/basket/add-product', buyer, { productId: voucher, quantity: 1, giftCard });
    expect(added.statusCode, added.body).toBe(200);
    const who = { ...buyer, token: added.headers['basket-token'] as string };
    expect((await call(t, 'POST', '/basket/add-gift-card', who, { code: paying })).statusCode).toBe(200);
    const placed = await checkout(t, who, checkoutForm(shop, { deliveryMethodId: undefined }));
    expect(placed.statusCode, placed.body).toBe(200);
    const { orderId, path } = orderLink(placed.json().location);
    expect((await t.app.inject({ method: 'GET', url: path })).statusCode).toBe(200);
    await t.drainJobs();
    // The bought card, with a code of its own (the recipient's mail would carry one).
    const boughtCode = newCode();
    const hmac = (await codeKey(db(), Date.now())).hmac(normaliseCode(boughtCode));
    await db().updateTable('gift_card').set({ code_hmac: hmac }).where('order_id', '=', orderId).execute();
    const order = await db().selectFrom('customer_order').select(['code', 'status']).where('id', '=', orderId).executeTakeFirstOrThrow();
    expect(order.status).not.toBe('CANCELLED');

    // The recipient's basket: a 4.00 book and the 5.90 courier, 4.00 of it paid by the bought card.
    const book = await stockedBook(t, shop, 5, 4);
    const recipient = await fill(t, { ip: '10.0.5.2' }, [[book, 1]]);
    const key = await createApiKey(db(), 'back-office', Date.now());
    midRefund = async () => {
      const onBasket = await call(t, 'POST', '/basket/add-gift-card', recipient, { code: boughtCode });
      expect(onBasket.statusCode, onBasket.body).toBe(200);
      const spent = await checkout(t, recipient, checkoutForm(shop));
      expect(spent.statusCode, spent.body).toBe(200);
    };
    const refunded = await t.app.inject({
      method: 'POST',
      url: `/admin/orders/${order.code}/refund`,
      headers: { authorization: `Bearer ${key}` },
      payload: {},
    });
    expect(midRefund).toBeUndefined();

    expect(refunded.statusCode, refunded.body).toBe(409);
    expect((await ledger(db(), paying)).balanceCents).toBe(0);
    const after = await db().selectFrom('customer_order').select('status').where('id', '=', orderId).executeTakeFirstOrThrow();
    expect(after.status).toBe(order.status);
    // The bought card keeps what the recipient did not spend (10.00 - 9.90).
    expect(await ledger(db(), boughtCode)).toMatchObject({ balanceCents: 10, entrySumCents: 10 });
  });
});
