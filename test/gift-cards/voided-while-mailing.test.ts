import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import type { MailMessage } from '../../src/infra/mail/mailer.js';
import { giftCardMailHandler } from '../../src/modules/gift-cards/gift-cards.jobs.js';
import { createProduct } from '../helpers/catalogue.js';
import { afterFirstRead } from '../helpers/overlapping-writes.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import type { TestApp } from '../helpers/test-app.js';
import { createListeningApp, setUpShop, type Shop } from '../orders/helpers.js';
import { dateIn } from './helpers.js';
import { paidCardOrder } from './paid-card-order.js';

// The recipient's mail of a bought card is sent on its delivery date by a job that reads the card,
// skips it when it was voided (its order refunded), and otherwise mints the code and mails it. An
// operator's refund that voided the card after the job's read and before the mint was not seen: the
// code was minted and mailed for a card that can pay nothing (the recipient got a gift that does not
// work). The mint is now conditional on the card's date being the one read (a void moves it), as it
// is on the sending read.

let t: TestApp;
let shop: Shop;
let smtp: SmtpCatcher;
let voucher: number;
beforeAll(async () => {
  smtp = await startSmtpCatcher();
  ({ t } = await createListeningApp({ env: { SMTP_URL: smtp.url, CHECKOUT_RATE_LIMIT_PER_IP: '100000/1m' } }));
  shop = await setUpShop(t);
  voucher = await createProduct(t.database.db, { type: 'VIRTUAL_GIFT_CARD', name: 'Kinkekaart', price: 10, vatRate: 0 });
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});
const db = () => t.database.db;

describe("a bought card voided while its recipient's mail is being sent", () => {
  it('is not minted or mailed', async () => {
    const giftCard = { amount: 25, recipientName: 'Jaan Tamm', recipientEmail: 'late@example.ee', deliveryDate: dateIn(1) };
    const { orderId, order } = await paidCardOrder(t, shop, voucher, giftCard);
    // The issuing job makes the card; its recipient's mail waits for the delivery date, when the job below runs.
    await t.drainJobs();
    const [issued] = await db().selectFrom('gift_card').select('id').where('order_id', '=', orderId).execute();
    const cardId = Number(issued!.id);

    const key = await createApiKey(db(), 'refunds', Date.now());
    const refunded: number[] = [];
    const mailed: MailMessage[] = [];
    const mailer = { send: async (message: MailMessage) => (mailed.push(message), { messageId: 'x' }), close() {} };
    const refundingDb = afterFirstRead(db(), 'gift_card', async () => {
      const answer = await t.app.inject({
        method: 'POST',
        url: `/admin/orders/${(await order()).code}/refund`,
        headers: { authorization: `Bearer ${key}` },
        payload: {},
      });
      refunded.push(answer.statusCode);
    });
    const outcome = await giftCardMailHandler({ db: refundingDb, mailer })({ cardId, to: 'recipient', delivery: 0 }, {} as never);
    expect(refunded).toEqual([200]);
    expect((await order()).status).toBe('CANCELLED');
    expect(outcome).toBe('skipped');
    expect(mailed).toEqual([]);
    const card = await db().selectFrom('gift_card').select(['code_hint', 'mailed_at']).where('id', '=', cardId).executeTakeFirstOrThrow();
    expect(card).toEqual({ code_hint: '', mailed_at: null });
  });
});
