import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/infra/passwords.js';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { signText } from '../../src/modules/integrations/index.js';
import { addSupplier } from '../../src/modules/integrations/suppliers.service.js';
import { createEngine, foldAllQueued } from '../../src/modules/search/index.js';
import { importLines } from '../basket/import-helpers.js';
import { basic, exportUser } from '../data-export/fixtures.js';
import { card as giftCard } from '../gift-cards/helpers.js';
import { GOOD_PASSWORD } from '../helpers/accounts.js';
import { createProduct } from '../helpers/catalogue.js';
import { createCustomer } from '../helpers/customers.js';
import { expectErrorBody } from '../helpers/http.js';
import { ATTEMPT_TABLES, BUFFERED_TABLES, rowTracker, type RowTracker } from '../helpers/row-tracker.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { checkoutForm, setUpShop, stockedBook, type Shop } from '../orders/helpers.js';
import { openCreateForm, placeOrder, productCode, type PlacedOrder } from '../orders/purchase-helpers.js';
import { HOUR, MINUTE, keepEachTestInOneRateLimitWindow } from '../helpers/rate-limit-window.js';
import { createBanner } from '../helpers/banners.js';

keepEachTestInOneRateLimitWindow(24 * HOUR, 2 * MINUTE);

// The bar "rate limits on anything an anonymous client can repeat", swept over every operation of
// the API documents that a caller without a bearer token can reach (none needed, or optional; the
// data export's Basic credentials and the suppliers' signatures count as no token: anyone can send
// wrong ones). Each operation is either
//
//   - a case below: one client repeats a request that does the operation's work (a write, a mail,
//     a call to the gateway, a check of a secret, a costly read) until it is answered 429 within the
//     limit the case names, set low here; the 429 is the documented error shape with Retry-After and
//     a status the operation documents, the refused requests change no rows (but the limits' own
//     counters) and nothing the case observes, and another client (another address; for a limit
//     per email, supplier or export user another of those) is still served as the first request
//     was. A limit per email, supplier or user is swept from a new address each time.
//   - capped silently (CAPPED_SILENTLY): past the cap the answer stays the same and nothing is
//     counted, by design, with the reason and what the sweep checks;
//   - exempt (EXEMPT): with the reason it needs no limit of its own.
//
// An anonymous operation the documents gain that is none of these fails the sweep, so a new route
// cannot slip through without a decision. RATE_LIMIT_SWEEP_REPORT=<file> writes each case's answers.

/** The limits the env sets, low so that the sweep stays fast. */
const LOW = 3;
/**
 * The guest basket writes per address: above LOW, so that the new-basket limit shows on its own, and
 * above WRONG_CODES, as a wrong gift card's write (a 422) is a guest write too.
 */
const BASKET_WRITES = 12;
/** Wrong discount and gift-card codes per address: the settings' defaults (10 in 10 minutes), which the sweep checks as shipped. */
const WRONG_CODES = 10;
/** Requests sent once limited: each must be refused and change nothing. */
const LIMITED_REPEATS = 2;

// Windows of a day (the longest the settings take: counters are pruned a day after their window
// starts): the database's windows are fixed, and a boundary within a case would start its count
// again (test/orders/rate-limits.test.ts once saw that with a minute's window); the token buckets
// refill in that time by nothing worth counting.
const WINDOW = '1d';
const low = `${LOW}/${WINDOW}`;
const GENEROUS = '100000000/1m';
const ENV: Record<string, string> = {
  API_DOCS: 'operator',
  TEST_GATEWAY: 'on',
  AUTH_RATE_LIMIT_PER_IP: low,
  // The per-email ceiling of registrations and resets drops requests in the worker (same answer): not a 429.
  AUTH_RATE_LIMIT_PER_EMAIL: GENEROUS,
  LOGIN_FAILURES_PER_ADDRESS: low,
  LOGIN_FAILURES_PER_EMAIL: GENEROUS,
  NEWSLETTER_RATE_LIMIT_PER_IP: low,
  NEWSLETTER_RATE_LIMIT_PER_EMAIL: low,
  BACK_IN_STOCK_RATE_LIMIT_PER_IP: low,
  BACK_IN_STOCK_RATE_LIMIT_PER_EMAIL: low,
  BACK_IN_STOCK_CONFIRM_RATE_LIMIT_PER_IP: low,
  CONTACT_RATE_LIMIT_PER_IP: low,
  CONTACT_RATE_LIMIT_PER_EMAIL: low,
  CHECKOUT_RATE_LIMIT_PER_IP: low,
  PAYMENT_CALLBACK_RATE_LIMIT_PER_IP: low,
  PAYMENT_CALLBACK_RATE_LIMIT_PER_PAYMENT: low,
  LINK_GUESS_RATE_LIMIT_PER_IP: low,
  BASKET_RATE_LIMIT_PER_IP: low,
  BASKET_WRITE_RATE_LIMIT_PER_IP: `${BASKET_WRITES}/${WINDOW}`,
  SEARCH_RATE_LIMIT_PER_IP: low,
  SESSION_ACTION_RATE_LIMIT_PER_IP: low,
  SESSION_ACTION_RATE_LIMIT_PER_SESSION: GENEROUS,
  CTR_CAP_PER_IP: low,
  CTR_CAP_PER_SESSION_BANNER: GENEROUS,
  REDIRECT_HIT_CAP_PER_IP: low,
  REDIRECT_HIT_CAP_PER_IP_REDIRECT: GENEROUS,
  QR_CODE_RATE_LIMIT_PER_IP: low,
  SUPPLIER_RATE_LIMIT_PER_IP: low,
  SUPPLIER_RATE_LIMIT: low,
  DATA_EXPORT_AUTH_FAILURES_PER_IP: low,
  DATA_EXPORT_RATE_LIMIT: low,
};

interface Case {
  /** The operation as the documents name it (with the export document's prefix), and a variant when there are several. */
  op: string;
  variant?: string;
  /** The setting (or the constant) that limits it. */
  limit: string;
  /** Requests that may pass before the first 429 (the first 429 comes at this many or sooner). */
  allowed: number;
  /** The repeating client's i-th request (0-based); a case of a limit per email or user sends each from a new address. */
  repeat(i: number): Promise<InjectOptions> | InjectOptions;
  /** The same request from another client, which must be served as the first was. */
  other(): Promise<InjectOptions> | InjectOptions;
  /** State the refused requests must leave as it was, besides the rows (a basket's lines). */
  observe?(): Promise<unknown>;
  /** Makes what the requests need (baskets to check out, cards to add) before anything is measured. */
  prepare?(): Promise<void>;
}

let t: TestApp;
let shop: Shop;
let tracker: RowTracker;
let addresses = 0;
/** A client address never used before: every limit of it starts afresh. */
const nextIp = () => {
  addresses += 1;
  return `10.${(addresses >> 16) & 255}.${(addresses >> 8) & 255}.${addresses & 255}`;
};
let emails = 0;
const nextEmail = (prefix: string) => `${prefix}.${++emails}.${Date.now().toString(36)}@example.ee`;

let f: {
  book: number;
  bookCode: string;
  soldOut: number;
  discountCode: string;
  loginEmail: string;
  order: PlacedOrder;
  /** Test-gateway payments started (their references), for genuine callbacks. */
  payments: string[];
  suppliers: Record<'perIp' | 'perSupplier' | 'other', { code: string; secret: string }>;
  /** Two for the cases, one to read the export's API document. */
  exportUsers: Array<{ authorization: string }>;
};

beforeAll(async () => {
  t = await createTestApp({ env: ENV });
  const db = t.database.db;
  shop = await setUpShop(t);
  const book = await stockedBook(t, shop, 100_000);
  const soldOut = await createProduct(db, { name: 'Otsas raamat', availability: 'TEMPORARILY_OUT_OF_STOCK' });
  const imported = await importLines(t, 'discount-codes', [{ code: 'PIIRANG', percent: 10 }]);
  expect(imported.statusCode, imported.body).toBe(200);
  // A customer with a password, for the logins.
  const customer = await createCustomer(db);
  const user = await db
    .selectFrom('client_account')
    .innerJoin('app_user', 'app_user.id', 'client_account.user_id')
    .select(['app_user.id', 'app_user.email'])
    .where('client_account.id', '=', customer.clientAccountId)
    .executeTakeFirstOrThrow();
  await db
    .updateTable('app_user')
    .set({ password_hash: await hashPassword(GOOD_PASSWORD) })
    .where('id', '=', user.id)
    .execute();
  // A guest's order, for the order links, and orders paid through the test gateway, for its callbacks.
  const order = await placeOrder(t, shop, { ip: nextIp() }, [[book, 1]]);
  const payments: string[] = [];
  for (let i = 0; i < 2; i += 1) {
    const paid = await placeOrder(t, shop, { ip: nextIp() }, [[book, 1]], {
      form: { paymentMethodId: 'TEST_GATEWAY' },
      startPayment: false,
    });
    payments.push(new URL((await openCreateForm(t, paid.path)).url).pathname.split('/').at(-1)!);
  }
  const supplier = async (code: string) => ({ code, secret: await addSupplier(db, code, `Tarnija ${code}`, Date.now()) });
  // Search answers once the index has folded the catalogue's queued changes (else a 503).
  await foldAllQueued(t.database, createEngine(t.database));
  f = {
    book,
    bookCode: await productCode(db, book),
    soldOut,
    discountCode: 'PIIRANG',
    loginEmail: user.email,
    order,
    payments,
    suppliers: { perIp: await supplier('SWEEPIP'), perSupplier: await supplier('SWEEPONE'), other: await supplier('SWEEPTWO') },
    exportUsers: [await exportUser(db), await exportUser(db), await exportUser(db)],
  };
  tracker = await rowTracker(db, t.config.databaseUrl);
}, 120_000);

afterAll(async () => {
  await tracker?.close?.();
  await t?.close();
});

// ---- Requests ----

function request(ip: string, method: string, url: string, body?: unknown, headers: Record<string, string> = {}): InjectOptions {
  return {
    method: method as 'GET',
    url,
    remoteAddress: ip,
    headers: { store: 'WEB', 'x-app-language': 'en', ...headers },
    ...(body === undefined ? {} : { payload: body as object }),
  };
}

/** A case whose every request comes from one address (`other` from a new one); `make` builds request i. */
function perAddress(
  op: string,
  limit: string,
  allowed: number,
  make: (ip: string, i: number) => Promise<InjectOptions> | InjectOptions,
  extra: Partial<Case> = {},
): Case {
  let ip: string | undefined;
  return {
    op,
    limit,
    allowed,
    repeat: (i) => make((ip ??= nextIp()), i),
    other: () => make(nextIp(), 0),
    ...extra,
  };
}

/** A guest basket with the book in it, made from an address of its own: its token. */
async function guestBasket(): Promise<string> {
  const made = await t.app.inject(request(nextIp(), 'POST', '/basket/add-product', { productId: f.book, quantity: 1 }));
  expect(made.statusCode, made.body).toBe(200);
  return made.headers['basket-token'] as string;
}

/** The lines of a guest's basket: what a refused basket write must leave as it was. */
async function basketLines(token: string): Promise<unknown> {
  const read = await t.app.inject(request(nextIp(), 'GET', '/basket', undefined, { 'basket-token': token }));
  const basket = read.json() as { items: Array<{ productId: number; quantity: number }>; discounts: unknown[]; deliveryMethod: unknown };
  return {
    items: basket.items.map((item) => [item.productId, item.quantity]),
    discounts: basket.discounts,
    delivery: basket.deliveryMethod,
  };
}

/** A guest basket case: the repeating address writes to a basket it has (made elsewhere); `other` to another one. */
function basketWrite(op: string, method: string, url: (i: number) => string, body?: (i: number) => unknown, variant?: string): Case {
  let ip: string | undefined;
  let token: string | undefined;
  return {
    op,
    variant,
    limit: 'BASKET_WRITE_RATE_LIMIT_PER_IP',
    allowed: BASKET_WRITES,
    repeat: async (i) => {
      token ??= await guestBasket();
      return request((ip ??= nextIp()), method, url(i), body?.(i), { 'basket-token': token });
    },
    other: async () => request(nextIp(), method, url(0), body?.(0), { 'basket-token': await guestBasket() }),
    observe: async () => (token === undefined ? null : basketLines(token)),
  };
}

const wrongToken = () => randomBytes(32).toString('base64url');
const companyForm = (email: string) => ({
  companyName: 'Piiratud OÜ',
  registryCode: '12345678',
  address: { street: 'Rüütli 2', city: 'Tartu', postcode: '51007', countryCode: 'EE' },
  contact: { firstName: 'Mari', lastName: 'Maasikas', email, phone: '+372 5123 4567' },
});
const contactForm = (email: string, i: number) => ({
  name: 'Mari Maasikas',
  email,
  subject: 'Küsimus',
  message: `Kus on mu raamat? (${i})`,
});

/** A signed supplier feed (a new body each time: a signature is accepted once). */
function supplierFeed(ip: string, supplier: { code: string; secret: string }): InjectOptions {
  const body = `{"code":"NOT-THEIRS-${randomBytes(4).toString('hex')}","stock":1}\n`;
  const timestamp = String(Math.floor(Date.now() / 1000));
  return {
    method: 'POST',
    url: `/integration/supplier/${supplier.code}/stock`,
    remoteAddress: ip,
    headers: {
      'content-type': 'application/x-ndjson',
      'x-timestamp': timestamp,
      'x-signature': signText(supplier.secret, timestamp, body),
    },
    payload: body,
  };
}

function cases(): Case[] {
  const auth = 'AUTH_RATE_LIMIT_PER_IP';
  const callback = 'PAYMENT_CALLBACK_RATE_LIMIT_PER_IP';
  const guesses = 'LINK_GUESS_RATE_LIMIT_PER_IP';
  const { order } = f;
  const returnUrl = `/bank/return-internal?orderId=${order.orderId}&checksum=${order.checksum}`;
  const exportOps = ['client-account', 'product', 'sales-history', 'session', 'shop'];
  const list: Case[] = [
    // Accounts: every endpoint counts each request of an address before anything else.
    perAddress('POST /auth/register', auth, LOW, (ip) => request(ip, 'POST', '/auth/register', { email: nextEmail('reg') })),
    perAddress('POST /auth/register-simple', auth, LOW, (ip) =>
      request(ip, 'POST', '/auth/register-simple', { email: nextEmail('reg'), firstName: 'Mari', lastName: 'Maasikas' }),
    ),
    perAddress('POST /auth/register-business', auth, LOW, (ip) =>
      request(ip, 'POST', '/auth/register-business', companyForm(nextEmail('biz'))),
    ),
    perAddress('POST /auth/register-wholesale', auth, LOW, (ip) =>
      request(ip, 'POST', '/auth/register-wholesale', { ...companyForm(nextEmail('whs')), expectedYearlyTurnover: 50_000 }),
    ),
    perAddress('GET /auth/verify-email-meta', auth, LOW, (ip) =>
      request(ip, 'GET', `/auth/verify-email-meta?verificationToken=${wrongToken()}`),
    ),
    perAddress('POST /auth/verify-email', auth, LOW, (ip) =>
      request(ip, 'POST', '/auth/verify-email', {
        verificationToken: wrongToken(),
        password: GOOD_PASSWORD,
        passwordRepeat: GOOD_PASSWORD,
        termsAccepted: true,
      }),
    ),
    perAddress('POST /auth/reset-password', auth, LOW, (ip) => request(ip, 'POST', '/auth/reset-password', { email: nextEmail('reset') })),
    perAddress('POST /auth/set-new-password', auth, LOW, (ip) =>
      request(ip, 'POST', '/auth/set-new-password', {
        passwordResetToken: wrongToken(),
        password: GOOD_PASSWORD,
        passwordRepeat: GOOD_PASSWORD,
      }),
    ),
    perAddress('POST /auth/login', auth, LOW, (ip) =>
      request(ip, 'POST', '/auth/login', { email: f.loginEmail, password: GOOD_PASSWORD, web_store_nav_code: 'WEB' }),
    ),
    {
      ...perAddress('POST /auth/login', 'LOGIN_FAILURES_PER_ADDRESS', LOW, (ip) =>
        request(ip, 'POST', '/auth/login', { email: f.loginEmail, password: 'Vale-parool-123', web_store_nav_code: 'WEB' }),
      ),
      variant: 'wrong passwords',
    },
    perAddress('GET /auth/external', auth, LOW, (ip) => request(ip, 'GET', '/auth/external?authclient=google&returnUrl=%2F')),
    perAddress('POST /auth/external', auth, LOW, (ip) => request(ip, 'POST', '/auth/external', { client: 'google', id: 'x', token: 'y' })),
    perAddress('POST /auth/social-login', auth, LOW, (ip) => request(ip, 'POST', '/auth/social-login', { authId: wrongToken() })),

    // Newsletter: per address, and the mails per email.
    perAddress('POST /newsletter/subscribe', 'NEWSLETTER_RATE_LIMIT_PER_IP', LOW, (ip) =>
      request(ip, 'POST', '/newsletter/subscribe', { email: nextEmail('news'), language: 'en' }),
    ),
    (() => {
      const email = nextEmail('news-one');
      return {
        op: 'POST /newsletter/subscribe',
        variant: 'one email from many addresses',
        limit: 'NEWSLETTER_RATE_LIMIT_PER_EMAIL',
        allowed: LOW,
        repeat: () => request(nextIp(), 'POST', '/newsletter/subscribe', { email, language: 'en' }),
        other: () => request(nextIp(), 'POST', '/newsletter/subscribe', { email: nextEmail('news-other'), language: 'en' }),
      };
    })(),
    perAddress('POST /newsletter/confirm', 'NEWSLETTER_RATE_LIMIT_PER_IP', LOW, (ip) =>
      request(ip, 'POST', '/newsletter/confirm', { token: wrongToken() }),
    ),
    perAddress('POST /newsletter/unsubscribe', 'NEWSLETTER_RATE_LIMIT_PER_IP', LOW, (ip) =>
      request(ip, 'POST', `/newsletter/unsubscribe?email=${encodeURIComponent(nextEmail('unsub'))}&store=WEB&signature=${wrongToken()}`),
    ),

    // Search: the work of an address (a token bucket of requests and milliseconds read).
    perAddress('GET /product/search', 'SEARCH_RATE_LIMIT_PER_IP', LOW, (ip) => request(ip, 'GET', '/product/search?q=book')),
    perAddress('GET /autocomplete', 'SEARCH_RATE_LIMIT_PER_IP', LOW, (ip) => request(ip, 'GET', '/autocomplete?term=boo')),
    perAddress('GET /product-dynamic-filter/filters', 'SEARCH_RATE_LIMIT_PER_IP', LOW, (ip) =>
      request(ip, 'GET', '/product-dynamic-filter/filters?q=book'),
    ),
    ...['author', 'series', 'publisher'].map((facet) =>
      perAddress(`GET /product-dynamic-filter/search-${facet}`, 'SEARCH_RATE_LIMIT_PER_IP', LOW, (ip) =>
        request(ip, 'GET', `/product-dynamic-filter/search-${facet}?term=a`),
      ),
    ),

    // QR codes: drawing one holds the event loop (a token bucket per address).
    perAddress('GET /qr-code/{code}', 'QR_CODE_RATE_LIMIT_PER_IP', LOW, (ip) => request(ip, 'GET', `/qr-code/product-${f.bookCode}`)),

    // Tracking.
    perAddress('POST /event/session-action', 'SESSION_ACTION_RATE_LIMIT_PER_IP', LOW, (ip, i) =>
      request(ip, 'POST', '/event/session-action', { session: `sweep-${ip}-${i}`, product: f.bookCode, actionType: 'VIEW' }),
    ),

    // The basket: new guest baskets per address (in the database), and every guest write (in memory).
    {
      ...perAddress('POST /basket/add-product', 'BASKET_RATE_LIMIT_PER_IP', LOW, (ip) =>
        request(ip, 'POST', '/basket/add-product', { productId: f.book, quantity: 1 }),
      ),
      variant: 'a new guest basket each time',
    },
    basketWrite(
      'POST /basket/add-product',
      'POST',
      () => '/basket/add-product',
      () => ({ productId: f.book, quantity: 1 }),
      'to its basket',
    ),
    basketWrite(
      'PUT /basket/change-quantity',
      'PUT',
      () => '/basket/change-quantity',
      (i) => ({ productId: f.book, quantity: i + 2 }),
    ),
    basketWrite('DELETE /basket/remove-product', 'DELETE', () => `/basket/remove-product?productId=${f.book}`),
    basketWrite('DELETE /basket/clear', 'DELETE', () => '/basket/clear'),
    basketWrite(
      'POST /basket/add-discount',
      'POST',
      () => '/basket/add-discount',
      () => ({ code: f.discountCode }),
      'a right code',
    ),
    {
      ...perAddress('POST /basket/add-discount', 'DISCOUNT_CODE_GUESS_RATE_LIMIT_PER_IP', WRONG_CODES, (ip) =>
        request(ip, 'POST', '/basket/add-discount', { code: `VALE${randomBytes(3).toString('hex')}` }),
      ),
      variant: 'wrong codes',
    },
    basketWrite('DELETE /basket/remove-discount', 'DELETE', () => '/basket/remove-discount'),
    basketWrite(
      'PUT /basket/delivery',
      'PUT',
      () => '/basket/delivery',
      () => ({ deliveryMethodId: shop.methods.COURIER }),
    ),
    {
      ...perAddress('POST /basket/add-gift-card', 'GIFT_CARD_GUESS_RATE_LIMIT_PER_IP', WRONG_CODES, (ip) =>
        request(ip, 'POST', '/basket/add-gift-card', { code: 'AAAA-BBBB-CCCC-DDDD-EEEE' }),
      ),
      variant: 'wrong codes',
    },
    (() => {
      const base = basketWrite('POST /basket/add-gift-card', 'POST', () => '/basket/add-gift-card', undefined, 'right codes');
      const ip = nextIp();
      let token: string | undefined;
      let other: string | undefined;
      // A new card each time (a basket takes five), made beforehand: making one writes rows.
      const codes: string[] = [];
      return {
        ...base,
        prepare: async () => {
          token = await guestBasket();
          other = await guestBasket();
          for (let i = 0; i < BASKET_WRITES + LIMITED_REPEATS + 2; i += 1) codes.push(await giftCard(t, 1));
        },
        repeat: (i: number) => request(ip, 'POST', '/basket/add-gift-card', { code: codes[i] }, { 'basket-token': token! }),
        other: () => request(nextIp(), 'POST', '/basket/add-gift-card', { code: codes.at(-1) }, { 'basket-token': other! }),
        observe: async () => basketLines(token!),
      };
    })(),
    basketWrite('DELETE /basket/remove-gift-card', 'DELETE', () => '/basket/remove-gift-card?code=AAAA-BBBB-CCCC-DDDD-EEEE'),
    perAddress('GET /virtual-gift-card/balance', 'GIFT_CARD_GUESS_RATE_LIMIT_PER_IP', WRONG_CODES, (ip) =>
      request(ip, 'GET', '/virtual-gift-card/balance?code=AAAA-BBBB-CCCC-DDDD-EEEE'),
    ),

    // Back in stock and the contact form: per address, and per email.
    perAddress('POST /back-in-stock', 'BACK_IN_STOCK_RATE_LIMIT_PER_IP', LOW, (ip) =>
      request(ip, 'POST', '/back-in-stock', { productId: f.soldOut, email: nextEmail('bis') }),
    ),
    (() => {
      const email = nextEmail('bis-one');
      return {
        op: 'POST /back-in-stock',
        variant: 'one email from many addresses',
        limit: 'BACK_IN_STOCK_RATE_LIMIT_PER_EMAIL',
        allowed: LOW,
        repeat: () => request(nextIp(), 'POST', '/back-in-stock', { productId: f.soldOut, email }),
        other: () => request(nextIp(), 'POST', '/back-in-stock', { productId: f.soldOut, email: nextEmail('bis-other') }),
      };
    })(),
    perAddress('POST /back-in-stock/confirm', 'BACK_IN_STOCK_CONFIRM_RATE_LIMIT_PER_IP', LOW, (ip) =>
      request(ip, 'POST', '/back-in-stock/confirm', { token: wrongToken() }),
    ),
    perAddress('POST /contact', 'CONTACT_RATE_LIMIT_PER_IP', LOW, (ip, i) =>
      request(ip, 'POST', '/contact', contactForm(nextEmail('contact'), i)),
    ),
    (() => {
      const email = nextEmail('contact-one');
      return {
        op: 'POST /contact',
        variant: 'one email from many addresses',
        limit: 'CONTACT_RATE_LIMIT_PER_EMAIL',
        allowed: LOW,
        repeat: (i: number) => request(nextIp(), 'POST', '/contact', contactForm(email, i)),
        other: () => request(nextIp(), 'POST', '/contact', contactForm(nextEmail('contact-other'), 0)),
      };
    })(),

    // Checkout and the order links.
    (() => {
      // A filled guest basket each time, made beforehand: making one writes rows.
      const baskets: string[] = [];
      const checkout = (ip: string) =>
        request(ip, 'POST', '/checkout', checkoutForm(shop, { paymentMethodId: 'CASH_ON_DELIVERY' }), { 'basket-token': baskets.pop()! });
      return {
        ...perAddress('POST /checkout', 'CHECKOUT_RATE_LIMIT_PER_IP', LOW, checkout),
        prepare: async () => {
          for (let i = 0; i < LOW + LIMITED_REPEATS + 2; i += 1) baskets.push(await guestBasket());
        },
      };
    })(),
    perAddress('GET /bank/create-form', guesses, LOW, (ip) =>
      request(ip, 'GET', `/bank/create-form?orderId=${order.orderId}&checksum=${wrongToken()}`),
    ),
    perAddress('GET /bank/return-internal', callback, LOW, (ip) => request(ip, 'GET', returnUrl)),
    perAddress('POST /bank/return-internal', callback, LOW, (ip) => request(ip, 'POST', returnUrl)),
    perAddress('POST /bank/payment-result', guesses, LOW, (ip) =>
      request(ip, 'POST', '/bank/payment-result', { orderId: order.orderId, checksum: wrongToken() }),
    ),
    // Gateway callbacks: the gateway's few servers send every genuine one, several a second in a
    // billing run, so no per-address limit counts them (test/orders/rate-limits.test.ts shows it);
    // those naming no payment count per address, and those naming one payment per payment.
    perAddress('GET /payment/{gateway}/callback', callback, LOW, (ip) =>
      request(ip, 'GET', `/payment/test/callback?payment_reference=tgp_${randomBytes(18).toString('base64url')}`),
    ),
    perAddress('POST /payment/{gateway}/callback', callback, LOW, (ip) =>
      request(ip, 'POST', '/payment/test/callback', { payment_reference: `tgp_${randomBytes(18).toString('base64url')}` }),
    ),
    {
      op: 'POST /payment/{gateway}/callback',
      variant: 'one payment from many addresses',
      limit: 'PAYMENT_CALLBACK_RATE_LIMIT_PER_PAYMENT',
      allowed: LOW,
      repeat: () => request(nextIp(), 'POST', '/payment/test/callback', { payment_reference: f.payments[0] }),
      other: () => request(nextIp(), 'POST', '/payment/test/callback', { payment_reference: f.payments[1] }),
    },
    perAddress('GET /order/{code}', guesses, LOW, (ip) => request(ip, 'GET', `/order/${order.code}?checksum=${wrongToken()}`)),
    perAddress('GET /order/{code}/download', guesses, LOW, (ip) =>
      request(ip, 'GET', `/order/${order.code}/download?checksum=${wrongToken()}`),
    ),
    perAddress('GET /order/{code}/download/{id}/link', guesses, LOW, (ip) =>
      request(ip, 'GET', `/order/${order.code}/download/1-1/link?checksum=${wrongToken()}`),
    ),
    perAddress('POST /order/{code}/repeat', guesses, LOW, (ip) =>
      request(ip, 'POST', `/order/${order.code}/repeat?checksum=${wrongToken()}`),
    ),
    perAddress('GET /gift-download/{key}', guesses, LOW, (ip) => request(ip, 'GET', `/gift-download/1.1.${'0'.repeat(64)}`)),
    perAddress('GET /gift-download/{key}/{id}/link', guesses, LOW, (ip) =>
      request(ip, 'GET', `/gift-download/1.1.${'0'.repeat(64)}/1-1/link`),
    ),
    {
      ...perAddress('POST /order/{code}/repeat', 'BASKET_RATE_LIMIT_PER_IP', LOW, (ip) =>
        request(ip, 'POST', `/order/${order.code}/repeat?checksum=${order.checksum}`),
      ),
      variant: 'a right link, into a new guest basket each time',
    },
    perAddress('GET /subscription-credit-card/return', callback, LOW, (ip) =>
      request(ip, 'GET', `/subscription-credit-card/return?cardId=1&checksum=${wrongToken()}`),
    ),
    perAddress('POST /subscription-credit-card/return', callback, LOW, (ip) =>
      request(ip, 'POST', `/subscription-credit-card/return?cardId=1&checksum=${wrongToken()}`),
    ),
    perAddress('GET /direct-download/{token}', guesses, LOW, (ip) =>
      request(ip, 'GET', `/direct-download/${wrongToken()}.${wrongToken()}`),
    ),

    // Partners: suppliers' feeds (per address, signed or not; per supplier once signed) and the data export.
    {
      ...perAddress('POST /integration/supplier/{code}/{kind}', 'SUPPLIER_RATE_LIMIT_PER_IP', LOW, (ip) =>
        supplierFeed(ip, f.suppliers.perIp),
      ),
      // The supplier's own limit is spent by the admitted requests: another address sends another supplier's feed.
      other: () => supplierFeed(nextIp(), f.suppliers.other),
    },
    {
      op: 'POST /integration/supplier/{code}/{kind}',
      variant: 'one supplier from many addresses',
      limit: 'SUPPLIER_RATE_LIMIT',
      allowed: LOW,
      repeat: () => supplierFeed(nextIp(), f.suppliers.perSupplier),
      other: () => supplierFeed(nextIp(), f.suppliers.other),
    },
    ...exportOps.map((collection) =>
      perAddress(`GET /export/${collection}`, 'DATA_EXPORT_AUTH_FAILURES_PER_IP', LOW, (ip) => ({
        method: 'GET' as const,
        url: `/export/${collection}`,
        remoteAddress: ip,
        headers: { authorization: basic('partner-nobody', 'wrong-password') },
      })),
    ),
    {
      op: 'GET /export/shop',
      variant: 'one export user from many addresses',
      limit: 'DATA_EXPORT_RATE_LIMIT',
      allowed: LOW,
      repeat: () => ({
        method: 'GET',
        url: '/export/shop',
        remoteAddress: nextIp(),
        headers: { authorization: f.exportUsers[0]!.authorization },
      }),
      other: () => ({
        method: 'GET',
        url: '/export/shop',
        remoteAddress: nextIp(),
        headers: { authorization: f.exportUsers[1]!.authorization },
      }),
    },
  ];
  return list;
}

// ---- Operations left without a 429, and why ----

/**
 * Past the cap the answer is the same and nothing is counted, by design (README: CTR_CAP_PER_*):
 * a banner beacon is fire-and-forget, and a browser showing a banner on every page must not see
 * errors. Counted in memory and written in batches, so a repeat costs no write. The sweep checks
 * that one address's views past CTR_CAP_PER_IP are not counted and another's are.
 */
const CAPPED_SILENTLY: Record<string, string> = {
  'POST /ctr/view': 'banner views: past CTR_CAP_PER_IP (and per session and banner) the same 202, not counted',
  'POST /ctr/click': 'banner clicks: past CTR_CAP_PER_IP (and per session and banner) the same 202, not counted',
  'GET /external-url':
    'old URLs: past REDIRECT_HIT_CAP_PER_IP (and per address and redirect) the same 200, not counted; a shopper following an old link is always sent on, and the lookup is one indexed read',
};

const READ_ONLY_CATALOGUE = 'read-only catalogue, cached per process (CATALOGUE_CACHE_TTL_MS) and public for guests; no secret';
const READ_ONLY_CONTENT = 'read-only content, cached per process and public for guests; no secret';
const PRODUCT_PAGE = `${READ_ONLY_CATALOGUE}; the view it records is capped silently per address and session (SESSION_ACTION_RATE_LIMIT_*)`;

/** Anonymous operations that need no limit of their own, each with its reason. */
const EXEMPT: Record<string, string> = {
  'GET /site/health': 'liveness probe: no read of the database, answered at once',
  'GET /site/ready': 'readiness probe for load balancers: one trivial read',
  'GET /site/version': 'a constant',
  'GET /app/config': 'read-only settings of the front-end, the same for everyone',
  'GET /country': 'read-only list, the same for everyone',
  'GET /product': `${READ_ONLY_CATALOGUE}; a list's order and total are kept too (CATALOGUE_LIST_CACHE_TTL_MS)`,
  'GET /product/{id}': PRODUCT_PAGE,
  'GET /product/code/{code}': PRODUCT_PAGE,
  'GET /product/{id}/related': READ_ONLY_CATALOGUE,
  'GET /product/{id}/assets': READ_ONLY_CATALOGUE,
  'GET /product/{id}/prices': READ_ONLY_CATALOGUE,
  'GET /product/{id}/availability': READ_ONLY_CATALOGUE,
  'GET /category': READ_ONLY_CATALOGUE,
  'GET /category/{id}': READ_ONLY_CATALOGUE,
  'GET /category/{id}/products': READ_ONLY_CATALOGUE,
  'GET /author': READ_ONLY_CATALOGUE,
  'GET /person/{id}': READ_ONLY_CATALOGUE,
  'GET /person/{id}/products': READ_ONLY_CATALOGUE,
  'GET /publisher': READ_ONLY_CATALOGUE,
  'GET /publisher/{id}': READ_ONLY_CATALOGUE,
  'GET /publisher/{id}/products': READ_ONLY_CATALOGUE,
  'GET /series': READ_ONLY_CATALOGUE,
  'GET /series/{id}': READ_ONLY_CATALOGUE,
  'GET /series/{id}/products': READ_ONLY_CATALOGUE,
  'GET /campaign': READ_ONLY_CATALOGUE,
  'GET /campaign/{id}': READ_ONLY_CATALOGUE,
  'GET /campaign/code/{code}': READ_ONLY_CATALOGUE,
  'GET /campaign/{id}/products': READ_ONLY_CATALOGUE,
  'GET /product-list': READ_ONLY_CATALOGUE,
  'GET /product-list/{id}': READ_ONLY_CATALOGUE,
  'GET /product-list/code/{code}': READ_ONLY_CATALOGUE,
  'GET /product-list/{id}/products': READ_ONLY_CATALOGUE,
  'GET /product-list/code/{code}/products': READ_ONLY_CATALOGUE,
  'GET /product-component/discounted': READ_ONLY_CATALOGUE,
  'GET /product-component/newest': READ_ONLY_CATALOGUE,
  'GET /product-component/top': READ_ONLY_CATALOGUE,
  'GET /product/{id}/recommendations': READ_ONLY_CATALOGUE,
  'GET /recommendation': READ_ONLY_CATALOGUE,
  'GET /quote': READ_ONLY_CATALOGUE,
  'GET /product/{id}/quotes': READ_ONLY_CATALOGUE,
  'GET /shop': READ_ONLY_CATALOGUE,
  'GET /shop/{code}': READ_ONLY_CATALOGUE,
  'GET /shop/{code}/schedule': READ_ONLY_CATALOGUE,
  'GET /product/{id}/comments': 'read-only: published comments, paged',
  'GET /product/{id}/rating': 'read-only: a product\u2019s average',
  'GET /subscription-plan': 'read-only list of plans',
  'GET /content-page/{slug}': READ_ONLY_CONTENT,
  'GET /composite-page/{slug}': READ_ONLY_CONTENT,
  'GET /category-page/{categoryId}': READ_ONLY_CONTENT,
  'GET /discount-page/{slug}': READ_ONLY_CONTENT,
  'GET /main-page': READ_ONLY_CONTENT,
  'GET /header-banner': READ_ONLY_CONTENT,
  'GET /mega-menu': READ_ONLY_CONTENT,
  'GET /blog': READ_ONLY_CONTENT,
  'GET /blog/{slug}': READ_ONLY_CONTENT,
  'GET /blog-category': READ_ONLY_CONTENT,
  'GET /news': READ_ONLY_CONTENT,
  'GET /news/{slug}': READ_ONLY_CONTENT,
  'GET /contact': 'read-only office data, public max-age=600',
  'GET /sitemap/{store}/{file}': 'a static file from the file store, public max-age=3600',
  'GET /checkout/meta': 'read-only: the payment and delivery choices',
  'GET /basket': "read-only: the caller's own basket, named by a random 256-bit token (nothing to guess); a read makes no basket",
  'GET /basket/totals': "read-only, as GET /basket: the caller's own basket",
  'GET /basket/delivery-methods': "read-only, as GET /basket: the caller's own basket's choices",
  'POST /basket/merge': 'a client\u2019s only: a guest is refused 401 before anything is read or written',
  'GET /payment/test/pay/{reference}':
    'the test gateway\u2019s simulated bank page: off in production (TEST_GATEWAY); its reference is a random 144-bit credential; read-only',
  'POST /payment/test/pay/{reference}':
    'the test gateway\u2019s buttons: off in production (TEST_GATEWAY); finishes a pending payment once, a repeat changes nothing',
};

// ---- The sweep ----

interface Operation {
  name: string;
  responses: Set<string>;
}

/** Every operation a caller without a bearer token can reach, from the main and the export documents. */
async function anonymousOperations(): Promise<Map<string, Operation>> {
  const operator = await createApiKey(t.database.db, 'rate-limit-sweep', Date.now());
  const main = await t.app.inject({ method: 'GET', url: '/openapi.json', headers: { authorization: `Bearer ${operator}` } });
  const exported = await t.app.inject({
    method: 'GET',
    url: '/export/openapi.json',
    headers: { authorization: f.exportUsers[2]!.authorization },
  });
  expect(main.statusCode).toBe(200);
  expect(exported.statusCode).toBe(200);
  const operations = new Map<string, Operation>();
  for (const document of [main.json(), exported.json()] as Array<{
    paths: Record<string, Record<string, { security?: Array<Record<string, unknown>>; responses?: Record<string, unknown> }>>;
    servers?: Array<{ url: string }>;
  }>) {
    const prefix = document.servers?.[0]?.url.replace(/\/$/, '') ?? '';
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        const security = op.security ?? [];
        // A bearer token required: not anonymous. None documented, or `{}` among the choices: anyone.
        const bearerOnly = security.length > 0 && !security.some((choice) => Object.keys(choice).length === 0);
        if (bearerOnly && security.every((choice) => 'bearer' in choice)) continue;
        const name = `${method.toUpperCase()} ${prefix}${path}`;
        operations.set(name, { name, responses: new Set(Object.keys(op.responses ?? {})) });
      }
    }
  }
  return operations;
}

const counted = (changes: Record<string, number>) =>
  Object.fromEntries(Object.entries(changes).filter(([table, n]) => n !== 0 && !(table in ATTEMPT_TABLES) && !(table in BUFFERED_TABLES)));

function checkRefusal(response: LightMyRequestResponse, documented: Set<string>, label: string): string[] {
  const problems: string[] = [];
  if (!documented.has('429')) problems.push('429 is not documented');
  try {
    expectErrorBody(response, 429, 'Too Many Requests');
    expect(String(response.headers['content-type'])).toMatch(/^application\/json/);
  } catch (error) {
    problems.push(`not the error shape: ${(error as Error).message.split('\n')[0]}`);
  }
  const retryAfter = response.headers['retry-after'];
  if (!/^[1-9]\d*$/.test(String(retryAfter))) problems.push(`Retry-After ${String(retryAfter)}`);
  return problems.map((problem) => `${label}: ${problem}`);
}

describe('rate limits on every operation an anonymous client can repeat', () => {
  it('answers a repeating client 429 with Retry-After, changes nothing more, and still serves another client', async () => {
    const operations = await anonymousOperations();
    const all = cases();

    // Every anonymous operation is swept, capped silently or exempt for a stated reason, and nothing else is listed.
    const swept = new Set(all.map((c) => c.op));
    const undecided = [...operations.keys()].filter((op) => !swept.has(op) && !(op in CAPPED_SILENTLY) && !(op in EXEMPT));
    expect(undecided, 'anonymous operations that are neither swept, capped silently nor exempt').toEqual([]);
    const stale = [...swept, ...Object.keys(CAPPED_SILENTLY), ...Object.keys(EXEMPT)].filter((op) => !operations.has(op));
    expect(stale, 'listed operations that are not anonymous operations of the documents').toEqual([]);
    const twice = Object.keys(EXEMPT).filter((op) => swept.has(op) || op in CAPPED_SILENTLY);
    expect(twice, 'operations both swept (or capped) and exempt').toEqual([]);

    const findings: string[] = [];
    const report: Array<{ case: string; statuses: number[]; other: number }> = [];
    for (const c of all) {
      const name = c.variant ? `${c.op} (${c.variant}, ${c.limit})` : `${c.op} (${c.limit})`;
      const documented = operations.get(c.op)!.responses;
      await c.prepare?.();
      await t.drainJobs();
      await tracker.changes();
      const statuses: number[] = [];
      let first: LightMyRequestResponse | undefined;
      let limitedAt = -1;
      for (let i = 0; i <= c.allowed && limitedAt < 0; i += 1) {
        const response = await t.app.inject(await c.repeat(i));
        statuses.push(response.statusCode);
        first ??= response;
        if (response.statusCode === 429) limitedAt = i;
      }
      if (first!.statusCode === 429 || first!.statusCode >= 500) {
        findings.push(`${name}: the first request was answered ${first!.statusCode}: ${first!.body.slice(0, 200)}`);
        continue;
      }
      if (limitedAt < 0) {
        findings.push(`${name}: no 429 in ${c.allowed + 1} requests (${statuses.join(', ')})`);
        continue;
      }
      // Once limited: refused again, in the documented shape, and nothing changes.
      // What the admitted requests queued is done before the refused ones are measured.
      await t.drainJobs();
      await tracker.changes();
      const before = await c.observe?.();
      const refusals: LightMyRequestResponse[] = [];
      for (let i = 0; i < LIMITED_REPEATS; i += 1) refusals.push(await t.app.inject(await c.repeat(limitedAt + 1 + i)));
      await t.drainJobs();
      const changed = counted(await tracker.changes());
      const after = await c.observe?.();
      for (const [i, refusal] of refusals.entries()) {
        if (refusal.statusCode !== 429)
          findings.push(`${name}: limited, then answered ${refusal.statusCode}: ${refusal.body.slice(0, 200)}`);
        else findings.push(...checkRefusal(refusal, documented, `${name} refusal ${i + 1}`));
      }
      if (Object.keys(changed).length > 0) findings.push(`${name}: refused requests changed rows ${JSON.stringify(changed)}`);
      if (JSON.stringify(before) !== JSON.stringify(after))
        findings.push(`${name}: refused requests changed ${JSON.stringify(before)} to ${JSON.stringify(after)}`);
      // Another client is served as the first request was.
      const other = await t.app.inject(await c.other());
      report.push({ case: name, statuses: [...statuses, ...refusals.map((r) => r.statusCode)], other: other.statusCode });
      if (other.statusCode !== first!.statusCode)
        findings.push(
          `${name}: another client was answered ${other.statusCode} (the first: ${first!.statusCode}): ${other.body.slice(0, 200)}`,
        );
    }
    if (process.env.RATE_LIMIT_SWEEP_REPORT) writeFileSync(process.env.RATE_LIMIT_SWEEP_REPORT, JSON.stringify(report, null, 1));
    expect(findings, `${all.length} cases`).toEqual([]);
  }, 300_000);

  it('counts no redirect hit of an address past REDIRECT_HIT_CAP_PER_IP, answering the same 200, and counts another address', async () => {
    const imported = await importLines(t, 'redirects', [
      { code: 'SWEEP-OLD-1', store: 'WEB', path: '/sweep/old-1', target: '/new-1' },
      { code: 'SWEEP-OLD-2', store: 'WEB', path: '/sweep/old-2', target: '/new-2' },
    ]);
    expect(imported.json(), imported.body).toMatchObject({ errorCount: 0 });
    // The operators' read writes the counted hits first.
    const key = await createApiKey(t.database.db, 'rate-limit-sweep-redirects', Date.now());
    const hitsOf = async (code: string) => {
      const res = await t.app.inject({
        method: 'GET',
        url: `/admin/content/redirects/${code}`,
        headers: { authorization: `Bearer ${key}` },
      });
      return (res.json() as { hits: number }).hits;
    };
    const hits = async () => (await hitsOf('SWEEP-OLD-1')) + (await hitsOf('SWEEP-OLD-2'));
    const follow = async (ip: string, path: string) => {
      const res = await t.app.inject(request(ip, 'GET', `/external-url?path=${path}`));
      expect(res.statusCode, res.body).toBe(200);
    };
    const ip = nextIp();
    // Over two redirects: the address's cap is what holds.
    for (let i = 0; i < LOW + 3; i += 1) await follow(ip, `/sweep/old-${(i % 2) + 1}`);
    await follow(nextIp(), '/sweep/old-1');
    expect(await hits()).toBe(LOW + 1);
  });

  it('counts no banner view or click of an address past CTR_CAP_PER_IP, answering the same 202, and counts another address', async () => {
    const bannerId = await createBanner(t.database.db, { code: 'RATE-LIMIT-SWEEP' });
    const counts = async () => {
      const rows = await t.database.db.selectFrom('banner_ctr').select(['views', 'clicks']).where('banner_id', '=', bannerId).execute();
      return {
        views: rows.reduce((sum, row) => sum + Number(row.views), 0),
        clicks: rows.reduce((sum, row) => sum + Number(row.clicks), 0),
      };
    };
    const report = (event: 'view' | 'click', ip: string, session: string) =>
      t.app.inject({ ...request(ip, 'POST', `/ctr/${event}`, { bannerId, placement: 'header' }), headers: { 'x-session-id': session } });
    for (const event of ['view', 'click'] as const) {
      const ip = nextIp();
      // A new session each time: the address's cap is what holds.
      for (let i = 0; i < LOW + 3; i += 1) expect((await report(event, ip, `${event}-${i}`)).statusCode).toBe(202);
      expect((await report(event, nextIp(), `${event}-other`)).statusCode).toBe(202);
    }
    await expect.poll(counts, { timeout: 5000, interval: 100 }).toEqual({ views: LOW + 1, clicks: LOW + 1 });
  });
});
