import type { ParsedMail } from 'mailparser';
import { expect } from 'vitest';
import { configuredGateways, type Gateways } from '../../src/modules/payments/index.js';
import { billDue, cardTokensFor, type CardTokens } from '../../src/modules/subscriptions/index.js';
import { recipientsOf } from '../back-in-stock/helpers.js';
import { importLines } from '../basket/import-helpers.js';
import { createCustomer, emailOf, type TestCustomer } from '../helpers/customers.js';
import { startEveryPayServer, type EveryPayServer, type EveryPayServerOptions } from '../helpers/everypay-server.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import type { TestApp, TestAppOptions } from '../helpers/test-app.js';
import { everypayEnv } from '../orders/everypay-helpers.js';
import { createListeningApp } from '../orders/helpers.js';

// A shop that sells subscriptions and saves cards through the local EveryPay (real HTTP both
// ways), its plans, and the steps the tests take: save a card, subscribe, run billing.

export const DAY = 86_400_000;

export const PLAN_LINES = [
  {
    code: 'AUDIO1',
    kind: 'AUDIO_CREDITS',
    titles: { et: 'Audio 1', en: 'Audio one', ru: 'Аудио 1' },
    credits: 1,
    monthlyPrice: 9.99,
    trialDays: 14,
    stores: ['WEB', 'WEB2'],
    position: 1,
  },
  {
    code: 'AUDIOMAX',
    kind: 'AUDIO_UNLIMITED',
    titles: { et: 'Audio piiramatu' },
    monthlyPrice: 19.99,
    trialDays: 7,
    stores: ['WEB'],
    position: 2,
  },
  {
    code: 'SHELF5',
    kind: 'EBOOK_SHELF',
    titles: { et: 'Riiul 5', en: 'Shelf of 5' },
    shelfSize: 5,
    monthlyPrice: 7.5,
    stores: ['WEB'],
    position: 3,
  },
  { code: 'OLD', kind: 'EBOOK_SHELF', titles: { et: 'Vana' }, shelfSize: 2, monthlyPrice: 3, stores: ['WEB'], active: false },
];

export interface SubscriptionShop {
  t: TestApp;
  origin: string;
  everypay: EveryPayServer;
  gateways: Gateways;
  /** What the app seals and opens saved cards' tokens with: the same keys, from its settings. */
  cardTokens: CardTokens;
  plans: Record<string, number>;
  close(): Promise<void>;
}

export async function startSubscriptionShop(
  env: Record<string, string> = {},
  options: Pick<TestAppOptions, 'wrapDatabase' | 'sqliteFile' | 'clock'> & { everypay?: EveryPayServerOptions } = {},
): Promise<SubscriptionShop> {
  const { everypay: server, ...appOptions } = options;
  const everypay = await startEveryPayServer(server);
  // Every test customer saves its cards from the one loopback address: the per-address limit is not what these test.
  const { t, origin } = await createListeningApp({
    ...appOptions,
    env: { ...everypayEnv(everypay), CARD_CHECK_RATE_LIMIT_PER_IP: '100000/1h', ...env },
  });
  everypay.setCallbackUrl(callbackUrlOf({ t, origin }));
  const imported = await importLines(t, 'subscription-plans', PLAN_LINES);
  expect(imported.statusCode, imported.body).toBe(200);
  const rows = await t.database.db.selectFrom('subscription_plan').select(['id', 'code']).execute();
  const gateways = configuredGateways({
    database: t.database,
    clock: { now: () => Date.now() },
    everypay: t.config.everypay,
    testGateway: true,
    publicUrl: t.config.orders.publicUrl,
    basePath: t.config.basePath,
  });
  return {
    t,
    origin,
    everypay,
    gateways,
    cardTokens: cardTokensFor({ databaseUrl: t.config.databaseUrl, cardTokenKeys: t.config.subscriptions.cardTokenKeys }, t.app.log),
    plans: Object.fromEntries(rows.map((row) => [row.code, Number(row.id)])),
    async close() {
      await everypay.close();
      await t.close();
    },
  };
}

/** Where the shop's EveryPay sends its callbacks (setCallbackUrl(null): none come). */
export const callbackUrlOf = (s: Pick<SubscriptionShop, 't' | 'origin'>) => `${s.origin}${s.t.config.basePath}/payment/everypay/callback`;

/** A subscription shop that mails through its own local SMTP server (`smtp`); close() stops both. */
export interface MailingShop extends SubscriptionShop {
  smtp: SmtpCatcher;
}

/**
 * The shop the tests of what customers are mailed use: EveryPay's callbacks not rate-limited (the
 * tests send many from one address), `env` on top.
 */
export async function startMailingShop(
  env: Record<string, string> = {},
  options: Pick<TestAppOptions, 'wrapDatabase' | 'sqliteFile' | 'clock'> = {},
): Promise<MailingShop> {
  const smtp = await startSmtpCatcher();
  const shop = await startSubscriptionShop({ PAYMENT_CALLBACK_RATE_LIMIT_PER_IP: '100000/1m', SMTP_URL: smtp.url, ...env }, options);
  return {
    ...shop,
    smtp,
    async close() {
      await shop.close();
      await smtp.close();
    },
  };
}

/** After a test that held EveryPay's callbacks: sends what it held and waits for them, so none reaches the next test. */
export async function releaseHeldCallbacks(s: SubscriptionShop) {
  await s.everypay.releaseCallbacks();
  await s.everypay.callbacksIdle();
}

/**
 * Puts the EveryPay test server back as the next test expects it, whatever this one did or where it
 * failed: callbacks to the shop, its API answering, none held back and none still being delivered.
 */
export async function resetGateway(s: SubscriptionShop) {
  s.everypay.setCallbackUrl(callbackUrlOf(s));
  s.everypay.breakApi(null);
  await releaseHeldCallbacks(s);
}

/** EveryPay's refund of a payment. */
export const REFUND_PATH = '/api/v4/payments/refund';

/** The refund requests EveryPay received for the payment. */
export const refundRequests = (s: SubscriptionShop, reference: string) =>
  s.everypay.requests.filter((r) => r.path === REFUND_PATH && (r.body as Record<string, unknown>).payment_reference === reference);

export const auth = (customer: Pick<TestCustomer, 'token'>) => ({ authorization: `Bearer ${customer.token}` });

export function call(s: SubscriptionShop, customer: Pick<TestCustomer, 'token'> | null, method: string, url: string, payload?: unknown) {
  return s.t.app.inject({
    method: method as 'GET',
    url,
    headers: customer ? auth(customer) : {},
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
}

/** Saves a card the whole way: POST, the shopper pays on EveryPay's page, the browser comes back. */
export async function saveCard(s: SubscriptionShop, customer: TestCustomer, action: 'pay' | 'decline' = 'pay'): Promise<number> {
  const started = await call(s, customer, 'POST', '/subscription-credit-card');
  expect(started.statusCode, started.body).toBe(200);
  const form = started.json() as { url: string; fields: Record<string, string> };
  const back = await s.everypay.shopper(form.fields.payment_reference!, action);
  const response = await fetch(back, { redirect: 'manual' });
  expect(response.status).toBe(303);
  const location = new URL(response.headers.get('location')!, 'http://frontend.invalid');
  return Number(location.searchParams.get('cardId'));
}

/** Moves a subscription's 30-day period to have ended a second ago, so that the next billing run finds it due; returns that end. */
export async function endPeriodASecondAgo(s: SubscriptionShop, id: number): Promise<number> {
  const end = Date.now() - 1000;
  await s.t.database.db
    .updateTable('subscription')
    .set({ period_start: end - 30 * DAY, period_end: end })
    .where('id', '=', id)
    .execute();
  return end;
}

/** A paying SHELF5 subscriber (no trial): period 1 charged, ACTIVE; `end` is the period's end, `token` the card's. */
export async function activeShelfSubscriber(
  s: SubscriptionShop,
): Promise<{ customer: TestCustomer; id: number; end: number; token: string }> {
  const customer = await createCustomer(s.t.database.db);
  await saveCard(s, customer);
  const token = s.everypay.cards().at(-1)!.token;
  const response = await subscribe(s, customer, 'SHELF5');
  expect(response.statusCode, response.body).toBe(201);
  const sub = response.json();
  expect(sub.status).toBe('ACTIVE');
  return { customer, id: sub.id, end: Date.parse(sub.currentPeriodEnd), token };
}

export async function subscribe(s: SubscriptionShop, customer: TestCustomer, planCode: string, cardId?: number) {
  return call(s, customer, 'POST', '/subscription', { planId: s.plans[planCode], ...(cardId === undefined ? {} : { cardId }) });
}

export const bill = (s: SubscriptionShop, now: number) => billDue(s.t.database.db, s.gateways, now, { cardTokens: s.cardTokens });

/** A pending charge last touched this long ago is the billing run's to look up (billing.service.ts, STALE_CHARGE_MS). */
const STALE = 11 * 60_000;

/** The billing run, now, with the subscription's pending charge made old enough for its look-up. */
export async function billStalePending(s: SubscriptionShop, id: number) {
  await s.t.database.db
    .updateTable('subscription_charge')
    .set({ updated_at: Date.now() - STALE })
    .where('subscription_id', '=', id)
    .where('state', '=', 'pending')
    .execute();
  return bill(s, Date.now());
}

export async function subscriptionRow(s: SubscriptionShop, id: number) {
  return s.t.database.db.selectFrom('subscription').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

export async function chargesOf(s: SubscriptionShop, id: number) {
  return s.t.database.db.selectFrom('subscription_charge').selectAll().where('subscription_id', '=', id).orderBy('id').execute();
}

/** EveryPay's merchant-initiated charge of a saved card. */
export const MIT_PATH = '/api/v4/payments/mit';

/**
 * The merchant-initiated charge requests EveryPay received for a subscription (its order
 * references start SUB<id>-), refused repeats included: a request, not always a payment.
 */
export function mitPayments(s: SubscriptionShop, id: number) {
  return s.everypay.requests
    .filter((r) => r.path === MIT_PATH)
    .filter((r) => String((r.body as Record<string, unknown>).order_reference).startsWith(`SUB${id}-`));
}

/** The mails queued about a subscription, by kind (not the deadline of a charge's request, which is no mail: subscriptions.mails.ts). */
export async function mailJobs(s: SubscriptionShop, subscriptionId: number) {
  const jobs = await s.t.database.db.selectFrom('job').select('payload').where('type', '=', 'subscription.mail').orderBy('id').execute();
  return jobs
    .map((job) => JSON.parse(job.payload) as { subscriptionId: number; kind: string })
    .filter((job) => job.subscriptionId === subscriptionId)
    .map((job) => job.kind);
}

/** A second client account (a company's) of the same user, with its own token. */
export function secondAccountOf(s: SubscriptionShop, customer: TestCustomer): Promise<TestCustomer> {
  return createCustomer(s.t.database.db, { kind: 'BUSINESS', ofUser: customer });
}

export { createCustomer };

/** The client's (first) subscription as GET /subscription shows it. */
export async function shownSubscription(s: SubscriptionShop, customer: TestCustomer) {
  const response = await call(s, customer, 'GET', '/subscription');
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { id: number; status: string; plan: { code: string }; nextPlanId: number | null }[])[0]!;
}

/** The subscription's upgrade charges, as [attempt, state]. */
export const upgradeCharges = async (s: SubscriptionShop, id: number) =>
  (await chargesOf(s, id)).filter((charge) => charge.purpose === 'UPGRADE').map((charge) => [charge.attempt, charge.state]);

/** The customer's login email (their user's: the subscription's mails go to it). */
export async function loginEmailOf(s: SubscriptionShop, customer: TestCustomer): Promise<string> {
  return (await emailOf(s.t.database.db, customer)).toLowerCase();
}

/**
 * The mails the SMTP server received for the customer, after the worker sent what was queued; with
 * `since`, only those after the first `since` mails it received.
 */
export async function mailsReceivedBy(s: MailingShop, customer: TestCustomer, since = 0): Promise<ParsedMail[]> {
  await s.t.drainJobs();
  const email = await loginEmailOf(s, customer);
  return s.smtp.mails.slice(since).filter((mail) => recipientsOf(mail).includes(email));
}

/** The language of the customer's user, which the subscription's mails are written in. */
export async function setMailLanguage(s: SubscriptionShop, customer: TestCustomer, language: 'et' | 'en' | 'ru') {
  await s.t.database.db
    .updateTable('app_user')
    .set({ language })
    .where('email', '=', await loginEmailOf(s, customer))
    .execute();
}

/** Cents as the mails write them: 12,34 € (Estonian, Russian), €12.34 (English). */
export const mailMoney = (cents: number, language: 'et' | 'en' | 'ru') =>
  language === 'en' ? `€${(cents / 100).toFixed(2)}` : `${(cents / 100).toFixed(2).replace('.', ',')} €`;

/**
 * A customer whose subscription to AUDIO1 is charged at once (no trial): a second client account of a
 * user who had the trial, with a saved card (`token`) EveryPay settles.
 */
export async function paidSubscriber(s: SubscriptionShop) {
  const payer = await createCustomer(s.t.database.db);
  await saveCard(s, payer);
  const customer = await secondAccountOf(s, payer);
  await saveCard(s, customer);
  await s.everypay.callbacksIdle();
  const token = s.everypay.cards().at(-1)!.token;
  s.everypay.setCardOutcome(token, 'settled');
  await subscribe(s, payer, 'AUDIO1');
  return { customer, token };
}

/**
 * A paid AUDIO1 subscription half-way through its period, whose period ends in `periodLeftMs`
 * (paidSubscriber's). What the upgrade tests try an upgrade on.
 */
export async function halfWayAudio1(s: SubscriptionShop, periodLeftMs: number) {
  const { customer, token } = await paidSubscriber(s);
  const sub = (await subscribe(s, customer, 'AUDIO1')).json();
  expect(sub.status).toBe('ACTIVE');
  const id = sub.id as number;
  const now = Date.now();
  await s.t.database.db
    .updateTable('subscription')
    .set({ period_start: now - 14 * DAY, period_end: now + periodLeftMs })
    .where('id', '=', id)
    .execute();
  return { customer, id, token };
}
