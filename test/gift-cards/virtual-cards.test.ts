import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { addDays, endOfLocalDay } from '../../src/infra/shop-time.js';
import { CliUsageError } from '../../src/infra/cli-usage.js';
import { retryJob } from '../../src/infra/jobs/queue.js';
import { contactCommand } from '../../src/modules/contact/index.js';
import { giftCardCommand } from '../../src/modules/gift-cards/gift-cards.cli.js';
import { giftCardIssueHandler } from '../../src/modules/gift-cards/gift-cards.jobs.js';
import { expireCards } from '../../src/modules/gift-cards/index.js';
import { call, type Who } from '../basket/helpers.js';
import { createProduct } from '../helpers/catalogue.js';
import { createCustomer, emailOf } from '../helpers/customers.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import { whileTransactionOpen } from '../helpers/overlapping-writes.js';
import type { TestApp } from '../helpers/test-app.js';
import { checkout, checkoutForm, createListeningApp, fill, orderLink, setUpShop, stockedBook, type Shop } from '../orders/helpers.js';
import { balance, card, dateIn, ledger } from './helpers.js';

// Virtual gift cards through HTTP: the basket line with its amount, recipient, message and
// delivery date; the card issued by a job queued with the paid transition; the buyer told; the
// recipient's mail (with the code) on the delivery date and not before; the list of cards a
// client bought or received, which nobody else sees.

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

const details = (overrides: Record<string, unknown> = {}) => ({
  amount: 30,
  recipientName: 'Jaan Tamm',
  recipientEmail: 'jaan@example.ee',
  message: 'Palju õnne!',
  deliveryDate: dateIn(1),
  ...overrides,
});
const addVoucher = (who: Who, giftCard: unknown, quantity = 1) =>
  call(t, 'POST', '/basket/add-product', who, { productId: voucher, quantity, ...(giftCard === undefined ? {} : { giftCard }) });
const list = (who: Who) => call(t, 'GET', '/virtual-gift-card', who);

describe('a virtual gift card in the basket', () => {
  it('goes in with its amount as the price and its details on the line; adding it again replaces them', async () => {
    const who = await fill(t, {}, []);
    const added = await addVoucher(who, details());
    expect(added.statusCode, added.body).toBe(200);
    const token = added.headers['basket-token'] as string;
    expect(added.json().items).toEqual([
      expect.objectContaining({
        productId: voucher,
        quantity: 1,
        unitPrice: 30,
        lineTotal: 30,
        giftCard: {
          amount: 30,
          recipientName: 'Jaan Tamm',
          recipientEmail: 'jaan@example.ee',
          message: 'Palju õnne!',
          senderName: '',
          deliveryDate: dateIn(1),
        },
      }),
    ]);
    const again = await addVoucher({ token }, details({ amount: 45.5, recipientEmail: 'MARI@Example.ee' }));
    expect(again.json()).toMatchObject({
      items: [{ quantity: 1, unitPrice: 45.5, giftCard: { amount: 45.5, recipientEmail: 'mari@example.ee' } }],
      total: 45.5,
    });
  });

  it('refuses what the store does not sell: amounts out of range, past or far dates, missing details, details on a book', async () => {
    const book = await stockedBook(t, shop, 5);
    const refusals: Array<[unknown, number]> = [
      [undefined, 422],
      [details({ amount: 5 }), 422],
      [details({ amount: 500.01 }), 422],
      [details({ amount: 10.005 }), 422],
      [details({ deliveryDate: dateIn(-1) }), 422],
      [details({ deliveryDate: dateIn(400) }), 422],
      [details({ deliveryDate: '2026-02-30' }), 422],
      [details({ recipientEmail: 'not-an-email' }), 422],
      [details({ recipientName: '' }), 422],
      [details({ amount: '30' }), 422],
    ];
    for (const [giftCard, status] of refusals) {
      const response = await addVoucher({}, giftCard);
      expect(response.statusCode, `${JSON.stringify(giftCard)}: ${response.body}`).toBe(status);
    }
    expect((await addVoucher({}, details(), 2)).statusCode).toBe(422);
    const onBook = await call(t, 'POST', '/basket/add-product', {}, { productId: book, quantity: 1, giftCard: details() });
    expect(onBook.statusCode).toBe(422);
  });

  it("writes the store's amounts in the refusal as the caller's language writes money", async () => {
    const refusals = {
      et: 'Kinkekaardi summa on 10,00 € kuni 500,00 €, täissentides.',
      en: 'A gift card is for €10.00 to €500.00, in whole cents.',
      ru: 'Сумма подарочной карты от 10,00 € до 500,00 €, в целых центах.',
    };
    for (const [language, message] of Object.entries(refusals)) {
      const response = await addVoucher({ language }, details({ amount: 500.01 }));
      expect(response.statusCode, response.body).toBe(422);
      expect(response.json()).toEqual([{ field: 'giftCard.amount', message }]);
    }
  });
});

describe('bought, issued, delivered', () => {
  it('is issued once the order is paid, the buyer is told, the recipient gets the code on the delivery date', async () => {
    const buyer = await createCustomer(db());
    const recipient = await createCustomer(db());
    const stranger = await createCustomer(db());
    const recipientEmail = await emailOf(db(), recipient);
    const who: Who = { bearer: buyer.token };
    const book = await stockedBook(t, shop, 5);
    await fill(t, who, [[book, 1]]);
    expect((await addVoucher(who, details({ recipientEmail: recipientEmail.toUpperCase() }))).statusCode).toBe(200);
    // A physical card pays all of it (20.00 + 30.00, and 5.90 for the courier chosen at checkout):
    // nothing is left for the gateway.
    const payWith = await card(t, 100);
    const basket = await call(t, 'POST', '/basket/add-gift-card', who, { code: payWith });
    expect(basket.json()).toMatchObject({ total: 50, giftCardAmount: 50, toPay: 0 });
    const placed = await checkout(t, who, checkoutForm(shop, { billingEmail: 'buyer@example.ee' }));
    expect(placed.statusCode, placed.body).toBe(200);
    const link = orderLink(placed.json().location);
    const purchases = await db().selectFrom('virtual_gift_card_purchase').selectAll().where('order_id', '=', link.orderId).execute();
    expect(purchases).toHaveLength(1);
    expect(purchases[0]).toMatchObject({ recipient_email: recipientEmail.toLowerCase(), buyer_client_account_id: buyer.clientAccountId });
    expect(await ledger(db(), payWith)).toMatchObject({ balanceCents: 10_000 - 5590, heldCents: 5590 });
    // Not paid yet: no card, no issuing job.
    expect(await issueJobs(link.orderId)).toBe(0);

    expect((await t.app.inject({ method: 'GET', url: link.path })).statusCode).toBe(200);
    const code = (await db().selectFrom('customer_order').select('code').where('id', '=', link.orderId).executeTakeFirstOrThrow()).code;
    const detail = await call(t, 'GET', `/order/${code}`, who);
    expect(detail.statusCode, detail.body).toBe(200);
    expect(detail.json()).toMatchObject({ status: 'PENDING_PROCESSING', giftCardAmount: 55.9, total: 0 });
    // The paid transition queued the issuing in its own transaction.
    expect(await issueJobs(link.orderId)).toBe(1);
    await t.drainJobs();
    const issued = await db().selectFrom('gift_card').selectAll().where('order_id', '=', link.orderId).execute();
    expect(issued).toHaveLength(1);
    expect(issued[0]).toMatchObject({ kind: 'VIRTUAL', mailed_at: null });
    expect(Number(issued[0]!.balance_cents)).toBe(3000);
    expect(Number(issued[0]!.expires_at)).toBeGreaterThan(Date.now() + 360 * 86_400_000);
    const told = await smtp.waitFor((mail) => mail.to !== undefined && JSON.stringify(mail.to).includes('buyer@example.ee'));
    expect(told.text).toContain('Jaan Tamm');
    expect(told.text).not.toMatch(/[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]/);
    // Before the delivery date nothing goes to the recipient, and the recipient does not see it yet.
    expect(smtp.mails.some((mail) => JSON.stringify(mail.to).includes(recipientEmail))).toBe(false);
    expect((await list({ bearer: buyer.token })).json()).toEqual([
      expect.objectContaining({ role: 'BOUGHT', amount: 30, balance: 30, code: null, delivered: false, recipientName: 'Jaan Tamm' }),
    ]);
    expect((await list({ bearer: recipient.token })).json()).toEqual([]);

    await deliveryDateComes();
    const delivered = await smtp.waitFor((mail) => JSON.stringify(mail.to).includes(recipientEmail));
    expect(delivered.text).toContain('Palju õnne!');
    const cardCode = /([0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z])/.exec(delivered.text ?? '')![1]!;
    expect((await balance(t, cardCode)).json()).toMatchObject({ valid: true, balance: 30 });
    expect(await ledger(db(), cardCode)).toMatchObject({ balanceCents: 3000, entrySumCents: 3000, kinds: ['ISSUE'] });
    // The code is not in the database.
    expect(JSON.stringify(await db().selectFrom('gift_card').selectAll().execute())).not.toContain(cardCode.replace(/-/g, ''));
    expect(JSON.stringify(await db().selectFrom('job').selectAll().execute())).not.toContain(cardCode.replace(/-/g, ''));

    const hint = cardCode.replace(/-/g, '').slice(-4);
    expect((await list({ bearer: buyer.token })).json()).toEqual([
      expect.objectContaining({ role: 'BOUGHT', code: hint, delivered: true }),
    ]);
    expect((await list({ bearer: recipient.token })).json()).toEqual([
      expect.objectContaining({ role: 'RECEIVED', code: hint, balance: 30 }),
    ]);
    // Somebody else sees none of it; a guest is asked to log in.
    expect((await list({ bearer: stranger.token })).json()).toEqual([]);
    expect((await list({})).statusCode).toBe(401);
    // A second run of the jobs sends nothing again and issues nothing again.
    const sent = smtp.mails.length;
    await db()
      .updateTable('job')
      .set({ status: 'pending', run_at: Date.now() - 1 })
      .where('type', 'in', ['gift-card.issue', 'gift-card.mail'])
      .execute();
    await t.drainJobs();
    expect(await db().selectFrom('gift_card').select('id').where('order_id', '=', link.orderId).execute()).toHaveLength(1);
    expect(smtp.mails.filter((mail) => JSON.stringify(mail.to).includes(recipientEmail))).toHaveLength(1);
    expect(smtp.mails.length - sent).toBeLessThanOrEqual(1);
  });
});

describe('from a named sender', () => {
  /** A card for `recipientEmail` from `senderName` (when given), bought and paid by a physical card, delivered: the recipient's mail. */
  async function deliveredFrom(recipientEmail: string, senderName: string | undefined, language = 'et') {
    await buyAndDeliver(recipientEmail, senderName, language);
    return smtp.waitFor((mail) => JSON.stringify(mail.to).includes(recipientEmail));
  }

  /** A card for `recipientEmail` bought and paid by a physical card, its delivery date come and its jobs run. */
  async function buyAndDeliver(recipientEmail: string, senderName: string | undefined, language = 'et') {
    const who = await fill(t, {}, [[await stockedBook(t, shop, 5), 1]]);
    const added = await addVoucher(who, details({ amount: 20, recipientEmail, ...(senderName === undefined ? {} : { senderName }) }));
    expect(added.statusCode, added.body).toBe(200);
    const basket = { token: added.headers['basket-token'] as string };
    expect(added.json().items.find((item: { giftCard?: unknown }) => item.giftCard).giftCard).toMatchObject({
      senderName: (senderName ?? '').trim(),
    });
    expect((await call(t, 'POST', '/basket/add-gift-card', basket, { code: await card(t, 100) })).statusCode).toBe(200);
    const placed = await checkout(t, basket, checkoutForm(shop), { 'x-app-language': language });
    expect(placed.statusCode, placed.body).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: orderLink(placed.json().location).path })).statusCode).toBe(200);
    await t.drainJobs();
    await deliveryDateComes();
  }

  it("tells the buyer once when the recipient's address does not exist, keeps the job dead, and `gift-card redeliver` sends it on", async () => {
    smtp.refuseRecipient('no-such-friend@example.ee', '550 5.1.1 No such user');
    await contactCommand(db(), ['set', 'WEB', '--email=office@example.ee'], () => {});
    await buyAndDeliver('no-such-friend@example.ee', 'Mari', 'en');
    const refused = await db()
      .selectFrom('job')
      .select(['id', 'payload', 'status', 'attempts', 'last_error'])
      .where('type', '=', 'gift-card.mail')
      .where('last_error', 'like', '%5.1.1%')
      .execute();
    expect(refused).toHaveLength(1);
    const cardId = (JSON.parse(refused[0]!.payload) as { cardId: number }).cardId;
    expect(refused[0]).toMatchObject({ status: 'dead', attempts: 1 });
    expect(refused[0]!.last_error).toContain(
      `gift card ${cardId} reached no one, its buyer is told; \`gift-card redeliver ${cardId} <email>\``,
    );
    const { buyer_email: buyerEmail } = await db()
      .selectFrom('virtual_gift_card_purchase')
      .select('buyer_email')
      .where('gift_card_id', '=', cardId)
      .executeTakeFirstOrThrow();
    const toBuyer = (subject: RegExp) =>
      smtp.mails.filter((mail) => JSON.stringify(mail.to).includes(buyerEmail) && subject.test(mail.subject ?? ''));
    await t.drainJobs();
    expect(toBuyer(/could not be delivered/)).toHaveLength(1);
    const [told] = toBuyer(/could not be delivered/);
    expect(told!.subject).toMatch(/^Your gift card of €20\.00 for Jaan Tamm could not be delivered$/);
    expect(told!.text).toContain('The mail server of no-such-friend@example.ee says that the address does not exist');
    // "Reply to this mail": the answer goes to the store's office.
    expect(told!.replyTo?.value.map((entry) => entry.address)).toEqual(['office@example.ee']);
    expect(told!.text).not.toMatch(/[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]/);
    // The refused job run again (an operator's retry, a worker that died before recording it) tells no one twice.
    expect(await retryJob(db(), refused[0]!.id)).toBe(true);
    await t.drainJobs();
    await t.drainJobs();
    expect(toBuyer(/could not be delivered/)).toHaveLength(1);

    // The operators send it where the buyer says: the recipient gets a working code, once.
    const printed: string[] = [];
    await giftCardCommand(db(), ['redeliver', String(cardId), ' Right.Friend@Example.ee '], (line) => printed.push(line));
    expect(JSON.parse(printed[0]!)).toEqual({ id: cardId, recipientEmail: 'right.friend@example.ee', deliverAt: expect.any(String) });
    // Queued for the card's delivery date, as the first mail was.
    await t.drainJobs();
    expect(smtp.mails.filter((mail) => JSON.stringify(mail.to).includes('right.friend@example.ee'))).toEqual([]);
    // Its mail may be on its way now: a second redeliver is refused, and the refused job run again
    // beside the new one is for the old address and sends nothing.
    await expect(giftCardCommand(db(), ['redeliver', String(cardId), 'other@example.ee'], () => {})).rejects.toThrow(
      `gift card ${cardId}: its address was not refused; nothing sent`,
    );
    expect(await retryJob(db(), refused[0]!.id)).toBe(true);
    await deliveryDateComes();
    const delivered = await smtp.waitFor((mail) => JSON.stringify(mail.to).includes('right.friend@example.ee'));
    const code = /([0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z])/.exec(delivered.text ?? '')![1]!;
    expect((await balance(t, code)).json()).toMatchObject({ valid: true, balance: 20 });
    expect(smtp.mails.filter((mail) => /no-such-friend|right\.friend/.test(JSON.stringify(mail.to)))).toEqual([delivered]);
    expect(await db().selectFrom('job').select('status').where('id', '=', refused[0]!.id).executeTakeFirstOrThrow()).toEqual({
      status: 'done',
    });
    expect(
      await db().selectFrom('gift_card').select(['recipient_email', 'undeliverable_at']).where('id', '=', cardId).executeTakeFirstOrThrow(),
    ).toEqual({
      recipient_email: 'right.friend@example.ee',
      undeliverable_at: null,
    });
    expect(await retryJob(db(), refused[0]!.id)).toBe(true);
    await t.drainJobs();
    expect(smtp.mails.filter((mail) => JSON.stringify(mail.to).includes('right.friend@example.ee'))).toHaveLength(1);
    // Delivered now; an unknown card; bad arguments.
    await expect(giftCardCommand(db(), ['redeliver', String(cardId), 'x@example.ee'], () => {})).rejects.toThrow(
      `gift card ${cardId}: delivered already; nothing sent`,
    );
    await expect(giftCardCommand(db(), ['redeliver', '999999', 'x@example.ee'], () => {})).rejects.toThrow(
      'gift card 999999: unknown; nothing sent',
    );
    for (const args of [
      ['redeliver', 'x', 'a@example.ee'],
      ['redeliver', String(cardId), 'not-an-address'],
      ['redeliver', String(cardId), 'buyer@localhost'],
      ['resend', String(cardId), 'a@example.ee'],
      ['redeliver'],
    ]) {
      await expect(
        giftCardCommand(db(), args, () => {}),
        args.join(' '),
      ).rejects.toBeInstanceOf(CliUsageError);
    }
  });

  it('sends a card redelivered to the same address once, however the refused job is run again', async () => {
    smtp.refuseRecipient('disabled.friend@example.ee', '550 5.2.1 Mailbox disabled');
    await buyAndDeliver('disabled.friend@example.ee', undefined);
    const refused = await db()
      .selectFrom('job')
      .select(['id', 'payload'])
      .where('type', '=', 'gift-card.mail')
      .where('status', '=', 'dead')
      .where('last_error', 'like', '%5.2.1%')
      .executeTakeFirstOrThrow();
    const cardId = (JSON.parse(refused.payload) as { cardId: number }).cardId;
    // The mailbox is back on; the buyer says the address was right.
    smtp.acceptRecipient('disabled.friend@example.ee');
    await giftCardCommand(db(), ['redeliver', String(cardId), 'disabled.friend@example.ee'], () => {});
    expect(await retryJob(db(), refused.id)).toBe(true);
    await deliveryDateComes();
    const mails = smtp.mails.filter((mail) => JSON.stringify(mail.to).includes('disabled.friend@example.ee'));
    expect(mails).toHaveLength(1);
    const code = /([0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z])/.exec(mails[0]!.text ?? '')![1]!;
    expect((await balance(t, code)).json()).toMatchObject({ valid: true, balance: 20 });
    // The refused job was of the sending before: it sent nothing, whichever ran first (beside the
    // new one, both would have minted a code and sent it).
    expect(await db().selectFrom('job').select(['status', 'result']).where('id', '=', refused.id).executeTakeFirstOrThrow()).toEqual({
      status: 'done',
      result: 'skipped',
    });
  });

  it("names the sender in the recipient's mail, in its language, escaped in the HTML", async () => {
    const mail = await deliveredFrom('from-mari@example.ee', '  Mari <Maasikas> ');
    expect(mail.subject).toMatch(/^Mari <Maasikas> saatis teile kinkekaardi 20,00\s?€$/);
    expect(mail.text).toMatch(/^Tere, Jaan Tamm! Mari <Maasikas> saatis teile poe .+ kinkekaardi väärtusega 20,00\s?€\.$/m);
    expect(mail.html).toContain('Mari &lt;Maasikas&gt; saatis teile');
    expect(mail.html).not.toContain('<Maasikas>');
    const english = await deliveredFrom('from-mari-en@example.ee', 'Mari', 'en');
    expect(english.subject).toMatch(/^Mari sent you a gift card of /);
  });

  it('without one (or an empty one), says the card is from the store, as before', async () => {
    for (const [email, senderName] of [
      ['from-store@example.ee', undefined],
      ['from-store-empty@example.ee', ' '],
    ] as const) {
      const mail = await deliveredFrom(email, senderName);
      expect(mail.subject).toMatch(/^Kinkekaart 20,00\s?€ poelt /);
      expect(mail.text).toContain('Te saite poelt');
    }
  });

  it('refuses a sender name that is not one line of text, changing nothing', async () => {
    const book = await stockedBook(t, shop, 5);
    const who = await fill(t, {}, [[book, 1]]);
    for (const senderName of ['Mari\nMaasikas', 'x'.repeat(201), 42]) {
      const refused = await addVoucher(who, details({ senderName }));
      expect(refused.statusCode, refused.body).toBe(422);
      expect(refused.json()).toEqual([expect.objectContaining({ field: 'giftCard.senderName' })]);
    }
    expect((await call(t, 'GET', '/basket', who)).json().items).toEqual([expect.objectContaining({ productId: book, quantity: 1 })]);
  });
});

describe('the day its mail says it is valid until', () => {
  it("is a day in Tallinn the card works through: it ends at that day's midnight there, and the balance shows that end", async () => {
    const who: Who = { bearer: (await createCustomer(db())).token };
    await fill(t, who, [[await stockedBook(t, shop, 5), 1]]);
    const deliveryDate = dateIn(2);
    expect((await addVoucher(who, details({ recipientEmail: 'until@example.ee', deliveryDate }))).statusCode).toBe(200);
    expect((await call(t, 'POST', '/basket/add-gift-card', who, { code: await card(t, 100) })).statusCode).toBe(200);
    const placed = await checkout(t, who, checkoutForm(shop));
    expect(placed.statusCode, placed.body).toBe(200);
    const link = orderLink(placed.json().location);
    expect((await t.app.inject({ method: 'GET', url: link.path })).statusCode).toBe(200);
    await t.drainJobs();
    await deliveryDateComes();
    const delivered = await smtp.waitFor((mail) => JSON.stringify(mail.to).includes('until@example.ee'));
    const until = /Kaart kehtib kuni (\d{4}-\d{2}-\d{2})\./.exec(delivered.text ?? '')![1]!;
    // A year (365 days) from the delivery date, through that whole day: ended 365 days after the delivery hour
    // (06:00 UTC), the card stopped at 08:00 or 09:00 in Tallinn of the day its mail named.
    expect(until).toBe(addDays(deliveryDate, 365));
    const code = /([0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z])/.exec(delivered.text ?? '')![1]!;
    const end = endOfLocalDay(until);
    expect((await balance(t, code)).json()).toMatchObject({ valid: true, expiresAt: new Date(end).toISOString() });
    // The hourly maintenance's expiry at 23:59:59.999 of that day in Tallinn, and at its midnight.
    await expireCards(db(), end - 1);
    expect(await ledger(db(), code)).toMatchObject({ balanceCents: 3000, kinds: ['ISSUE'] });
    await expireCards(db(), end);
    expect(await ledger(db(), code)).toMatchObject({ balanceCents: 0, kinds: ['ISSUE', 'EXPIRY'] });
  });
});

describe('refunded after it was issued', () => {
  it('the card is voided (what is left comes off, it expires) and its delivery mail is not sent', async () => {
    const buyer = await createCustomer(db());
    const who: Who = { bearer: buyer.token };
    const book = await stockedBook(t, shop, 5);
    await fill(t, who, [[book, 1]]);
    expect((await addVoucher(who, details({ amount: 25, recipientEmail: 'void@example.ee' }))).statusCode).toBe(200);
    const placed = await checkout(t, who, checkoutForm(shop, { paymentMethodId: 'TEST_GATEWAY' }));
    expect(placed.statusCode, placed.body).toBe(200);
    const link = orderLink(placed.json().location);
    const form = (await t.app.inject({ method: 'GET', url: link.path })).json() as { url: string };
    const paid = await t.app.inject({
      method: 'POST',
      url: new URL(form.url).pathname,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'action=pay',
    });
    expect(paid.statusCode).toBe(303);
    const status = async () =>
      await db().selectFrom('customer_order').select(['status', 'code']).where('id', '=', link.orderId).executeTakeFirstOrThrow();
    await expect.poll(async () => (await status()).status, { timeout: 10_000 }).toBe('PENDING_PROCESSING');
    await t.drainJobs();
    const [issued] = await db().selectFrom('gift_card').selectAll().where('order_id', '=', link.orderId).execute();
    expect(Number(issued!.balance_cents)).toBe(2500);

    const key = await createApiKey(db(), `refunds-${Date.now()}`, Date.now());
    const refund = await t.app.inject({
      method: 'POST',
      url: `/admin/orders/${(await status()).code}/refund`,
      headers: { authorization: `Bearer ${key}` },
      payload: {},
    });
    expect(refund.statusCode, refund.body).toBe(200);
    expect((await status()).status).toBe('CANCELLED');
    const [voided] = await db().selectFrom('gift_card').selectAll().where('order_id', '=', link.orderId).execute();
    expect(Number(voided!.balance_cents)).toBe(0);
    expect(Number(voided!.expires_at)).toBeLessThanOrEqual(Date.now());
    const kinds = await db().selectFrom('gift_card_entry').select('kind').where('gift_card_id', '=', voided!.id).orderBy('id').execute();
    expect(kinds.map((entry) => entry.kind)).toEqual(['ISSUE', 'VOID']);
    await deliveryDateComes();
    expect(smtp.mails.some((mail) => JSON.stringify(mail.to).includes('void@example.ee'))).toBe(false);
  });
});

describe('given up while its card is being issued', () => {
  it('issues no card for a purchase cancelled after the issuing job read it', async () => {
    const buyer = await createCustomer(db());
    const who: Who = { bearer: buyer.token };
    await fill(t, who, [[await stockedBook(t, shop, 5), 1]]);
    expect((await addVoucher(who, details({ amount: 20, recipientEmail: 'race@example.ee' }))).statusCode).toBe(200);
    const placed = await checkout(t, who, checkoutForm(shop, { paymentMethodId: 'TEST_GATEWAY' }));
    expect(placed.statusCode, placed.body).toBe(200);
    const link = orderLink(placed.json().location);
    // The order given up (a refund, a cancel) in a transaction that commits while the job runs.
    await whileTransactionOpen(
      db(),
      (trx) =>
        trx.updateTable('virtual_gift_card_purchase').set({ cancelled_at: Date.now() }).where('order_id', '=', link.orderId).execute(),
      () => giftCardIssueHandler({ db: db() })({ orderId: link.orderId }, {} as never),
      100,
    );
    // PostgreSQL: the job read the purchase before the cancel committed, and issued a card with a working code for it.
    expect(await db().selectFrom('gift_card').select('id').where('order_id', '=', link.orderId).execute()).toEqual([]);
  });
});

/** The delivery date comes: the recipients' mails queued for it go out. */
async function deliveryDateComes(): Promise<void> {
  await db()
    .updateTable('job')
    .set({ run_at: Date.now() - 1 })
    .where('type', '=', 'gift-card.mail')
    .where('status', '=', 'pending')
    .execute();
  await t.drainJobs();
}

async function issueJobs(orderId: number): Promise<number> {
  const jobs = await db().selectFrom('job').select('payload').where('type', '=', 'gift-card.issue').execute();
  return jobs.filter((job) => (JSON.parse(job.payload) as { orderId: number }).orderId === orderId).length;
}
