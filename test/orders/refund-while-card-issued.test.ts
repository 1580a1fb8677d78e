import { TableNode, UpdateQueryNode, type KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { giftCardIssueHandler } from '../../src/modules/gift-cards/index.js';
import { call } from '../basket/helpers.js';
import { dateIn } from '../gift-cards/helpers.js';
import { lockWaiters, until } from '../helpers/lock-waits.js';
import { engine } from '../helpers/test-app.js';
import { checkoutByCard, createForm } from './everypay-helpers.js';
import { fill, stockedBook } from './helpers.js';
import { refundsAsked, startRefundShop, type RefundShop } from './refund-helpers.js';

// The worker issues the virtual gift card a paid order bought while an operator refunds the order in
// full. The refund's status change locks the order and then writes the order's purchases (to void
// the cards it bought); the worker's transaction had locked the card's purchase row and then, making
// the card, needed a key-share lock on the order. On PostgreSQL each waited for the other: a deadlock,
// and the refund (made at EveryPay) answered 500. The worker now takes the order's row first.

let s: RefundShop;
beforeAll(async () => {
  s = await startRefundShop();
});
afterAll(async () => {
  await s?.close();
});
const db = () => s.t.database.db;

describe.runIf(engine === 'postgres')('a refund of everything while the worker issues the card the order bought', () => {
  it('answers 200, refunds once and leaves nothing on the card', async () => {
    const book = await stockedBook(s.t, s.shop, 5, 20);
    const who = await fill(s.t, { ip: '10.0.8.1' }, [[book, 1]]);
    const giftCard = { amount: 10, recipientName: 'Jaan Tamm', recipientEmail: 'jaan@example.ee', deliveryDate: dateIn(1) };
    const added = await call(s.t, 'POST', '/basket/add-product', who, { productId: s.voucher, quantity: 1, giftCard });
    expect(added.statusCode, added.body).toBe(200);
    const placed = await checkoutByCard(s, who);
    const { reference } = await createForm(s, { ...placed, productId: 0 });
    await s.everypay.shopper(reference, 'pay');
    await s.everypay.callbacksIdle();
    const paid = await db().selectFrom('customer_order').select('status').where('id', '=', placed.orderId).executeTakeFirstOrThrow();
    expect(paid.status).toBe('PENDING_PROCESSING');

    // The worker's issuing transaction, stopped once it holds the card's purchase row.
    let holding!: () => void;
    const held = new Promise<void>((resolve) => (holding = resolve));
    let goOn!: () => void;
    const goneOn = new Promise<void>((resolve) => (goOn = resolve));
    const purchaseWrites = new Set<string>();
    const stopAtPurchase: KyselyPlugin = {
      transformQuery({ node, queryId }) {
        const target = UpdateQueryNode.is(node) ? node.table : undefined;
        const table = target && TableNode.is(target) ? target.table.identifier.name : undefined;
        if (table === 'virtual_gift_card_purchase') purchaseWrites.add(queryId.queryId);
        return node;
      },
      async transformResult({ result, queryId }) {
        if (purchaseWrites.delete(queryId.queryId)) {
          holding();
          await goneOn;
        }
        return result;
      },
    };
    const issue = giftCardIssueHandler({ db: db().withPlugin(stopAtPurchase) });
    const issuing = issue({ orderId: placed.orderId }, {} as never).then(String, (error: unknown) => `failed: ${String(error)}`);
    await held;

    const refunding = s.refund(placed.code, {});
    // The refund waits on a lock the worker holds; then the worker goes on.
    await until('the refund to wait on a lock', async () => (await lockWaiters(db())) >= 1);
    goOn();
    const [issued, refunded] = await Promise.all([issuing, refunding]);
    expect(refunded.statusCode, refunded.body).toBe(200);
    expect(issued).toBe('issued 1');
    await s.everypay.callbacksIdle();

    expect(refundsAsked(s, reference)).toEqual([placed.totalCents]);
    const order = await db().selectFrom('customer_order').select('status').where('id', '=', placed.orderId).executeTakeFirstOrThrow();
    expect(order.status).toBe('CANCELLED');
    const cards = await db().selectFrom('gift_card').select('balance_cents').where('order_id', '=', placed.orderId).execute();
    expect(cards.map((card) => Number(card.balance_cents))).toEqual([0]);
  });
});
