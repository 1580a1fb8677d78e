import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { acceptInvitation, companyMaster, invite } from '../companies/fixtures.js';
import { dateIn, card as giftCard } from '../gift-cards/helpers.js';
import { GOOD_PASSWORD, mailTo, registerVerified, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';
import { createProduct } from '../helpers/catalogue.js';
import { clientAccountOf } from '../helpers/catalogue-comments.js';
import { createCustomer, type TestCustomer } from '../helpers/customers.js';
import { expectErrorBody, expectFieldErrors } from '../helpers/http.js';
import { uploadProductFiles } from '../helpers/product-files.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import { checkoutForm, fill, orderLink, setUpShop, stockedBook, type Shop } from '../orders/helpers.js';
import { placeOrder, type PlacedOrder } from '../orders/purchase-helpers.js';
import { saveCard, startSubscriptionShop, type SubscriptionShop } from '../subscriptions/helpers.js';

// The bar "every id-taking route checks that the caller owns the thing", swept over the whole API
// in one place. Customer A makes one of everything a customer or a company owns, through the real
// flows (basket, checkout paid by a gift card, processing, the operator's file upload, a card
// saved on the local EveryPay, a trial subscription and a take, a comment and rating, a wishlist
// line, a back-in-stock request, an address, an email change waiting for its link, a guest's
// basket and order, companies with users and a sub-company). Then everybody else calls every
// route that takes an id with A's ids: another customer of the store (B), a customer of WEB2 (C),
// a guest; company employees on their own company's admin routes, and masters of other companies
// (and of the other store) on A's company. Each gets the documented 4xx in the documented shape,
// the answer carries none of A's data, and A's things read the same afterwards. Last, A's own
// calls on the same routes with the same ids succeed, so the refusals are about ownership and not
// about ids that lead nowhere.

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

interface Actor {
  name: string;
  /** The bearer token; a guest has none. */
  token?: string;
  store: string;
  ip: string;
  /** A guest's basket token. */
  basketToken?: string;
}

let s: SubscriptionShop;
let smtp: SmtpCatcher;
let t: AccountsTestApp;
let shop: Shop;
let fileDir: string;

const send = (who: Actor, method: Method, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({
    method,
    url,
    remoteAddress: who.ip,
    headers: {
      store: who.store,
      'x-app-language': 'en',
      ...(who.token === undefined ? {} : { authorization: `Bearer ${who.token}` }),
      ...(who.basketToken === undefined ? {} : { 'basket-token': who.basketToken }),
      ...headers,
    },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

async function ok(response: LightMyRequestResponse | Promise<LightMyRequestResponse>, status = 200) {
  const answer = await response;
  expect(answer.statusCode, answer.body).toBe(status);
  return answer;
}

/** A customer registered through the real flow (mail, verification link), with its token and account. */
async function registered(name: string, store: string, ip: string): Promise<Actor & { email: string; clientAccountId: number }> {
  const email = uniqueEmail(name);
  const token = await registerVerified(t, email, store);
  return { name, token, store, ip, email, clientAccountId: await clientAccountOf(t.database.db, token) };
}

const asCustomer = (who: Actor & { clientAccountId: number }): TestCustomer => ({
  token: who.token!,
  clientCode: '',
  clientAccountId: who.clientAccountId,
  companyId: null,
});

const actor = (name: string, customer: { token: string }, store = 'WEB', ip = '198.51.100.60'): Actor => ({
  name,
  token: customer.token,
  store,
  ip,
});

// Everyone in the sweep, and A's things.
let A: Actor & { email: string; clientAccountId: number };
let B: Actor & { email: string; clientAccountId: number };
let C: Actor & { email: string; clientAccountId: number };
let guest: Actor;
let guestOfWeb2: Actor;
/** A guest with a basket and an order of its own. */
let G: Actor;
let a: {
  addressId: number;
  order: PlacedOrder;
  downloadId: string;
  link: string;
  cardId: number;
  subscriptionId: number;
  takenAudiobook: number;
  otherAudiobook: number;
  commented: number;
  commentId: number;
  wished: number;
  backInStockId: number;
  soldOut: number;
  emailToken: string;
  pendingEmail: string;
};
let guestOrder: PlacedOrder;
let plans: Record<string, number>;
// Companies: X (business: master MA, employee EA), Y (business: master MB), a business master of
// WEB2 (M2), wholesale W (master WA, employee WE, sub-company S) and V (wholesale: master WB).
let MA: Actor;
let EA: Actor & { accountId: number; email: string };
let MAid: number;
let MB: Actor;
let M2: Actor;
let WA: Actor;
let WE: Actor;
let WB: Actor;
let subCompanyId: number;

/** Strings only A's things hold: none may appear in an answer to anybody else. */
const MARKERS = {
  addressLine: 'Omaniku tänav 17',
  addressPhone: '+372 5123 4567',
  shippingName: 'Anna Omanik',
  commentText: 'Omaniku arvustus: väga hea raamat',
  subCompany: 'Omaniku Haruettevõte',
  subCompanyStreet: 'Haru põik 3',
  recipient: 'Kingisaaja Omanik',
};
let secrets: string[];

function expectNoLeak(response: LightMyRequestResponse, label: string) {
  const text = `${response.body} ${JSON.stringify(response.headers)}`;
  for (const secret of secrets) expect(text.includes(secret), `${label} leaks ${secret}: ${response.body}`).toBe(false);
}

const ERROR_NAMES: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found' };

/** The documented refusal: its status, in the error shape (field errors for a 422), leaking nothing of A's. */
function expectRefused(response: LightMyRequestResponse, status: number, label: string) {
  expect(response.statusCode, `${label}: ${response.body}`).toBe(status);
  if (status === 422) expectFieldErrors(response);
  else if (ERROR_NAMES[status]) expectErrorBody(response, status, ERROR_NAMES[status]);
  expectNoLeak(response, label);
}

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  fileDir = mkdtempSync(join(tmpdir(), 'storefront-sweep-files-'));
  s = await startSubscriptionShop({
    SMTP_URL: smtp.url,
    FILE_STORE_DIR: fileDir,
    CHECKOUT_RATE_LIMIT_PER_IP: '100000/1m',
    LINK_GUESS_RATE_LIMIT_PER_IP: '100000/1m',
    BACK_IN_STOCK_RATE_LIMIT_PER_IP: '1000/1h',
    BACK_IN_STOCK_RATE_LIMIT_PER_EMAIL: '1000/1h',
  });
  // The accounts helpers need the app and its SMTP server; nothing here uses the conversions receiver.
  t = { ...s.t, smtp } as unknown as AccountsTestApp;
  plans = s.plans;
  shop = await setUpShop(t);
  const db = t.database.db;

  A = await registered('owner-a', 'WEB', '198.51.100.11');
  B = await registered('other-b', 'WEB', '198.51.100.12');
  C = await registered('web2-c', 'WEB2', '198.51.100.13');
  guest = { name: 'guest', store: 'WEB', ip: '198.51.100.14' };
  guestOfWeb2 = { name: 'guest of WEB2', store: 'WEB2', ip: '198.51.100.16' };

  // The catalogue: a book, an e-book, a voucher, audiobooks, a sold-out book; P is sold in both stores.
  const book = await stockedBook(t, shop, 50);
  const ebook = await createProduct(db, { name: 'Omaniku e-raamat', type: 'EBOOK', binding: 'EPUB', deliveryTime: 'INSTANT_DOWNLOAD' });
  const voucher = await createProduct(db, { type: 'VIRTUAL_GIFT_CARD', name: 'Kinkekaart', price: 10, vatRate: 0 });
  const audiobook = () =>
    createProduct(db, { name: 'Kuuldav raamat', type: 'AUDIOBOOK', binding: 'MP3', deliveryTime: 'INSTANT_DOWNLOAD', price: 12 });
  const takenAudiobook = await audiobook();
  const otherAudiobook = await audiobook();
  const commented = await createProduct(db, { name: 'Arvustatud', stores: ['WEB', 'WEB2'] });
  const soldOut = await createProduct(db, { name: 'Otsas', availability: 'TEMPORARILY_OUT_OF_STOCK', stores: ['WEB', 'WEB2'] });
  const operator = await createApiKey(db, 'sweep-files', Date.now());
  await uploadProductFiles(t, operator, [
    [ebook, 'EPUB'],
    [takenAudiobook, 'MP3'],
    [otherAudiobook, 'MP3'],
  ]);

  // A's address.
  const address = await ok(
    send(A, 'POST', '/client-account/address', {
      kind: 'SHIPPING',
      name: MARKERS.shippingName,
      phone: MARKERS.addressPhone,
      address: MARKERS.addressLine,
      city: 'Tartu',
      postcode: '51007',
      countryNavCode: 'EE',
      isDefault: true,
    }),
    201,
  );

  // A's order: a book, an e-book and a virtual gift card, paid in full by a gift card; processed,
  // so the e-book is A's to download and the virtual card is issued.
  const who = await fill(t, { bearer: A.token, ip: A.ip }, [
    [book, 1],
    [ebook, 1],
  ]);
  const voucherLine = {
    amount: 15,
    recipientName: MARKERS.recipient,
    recipientEmail: 'kingisaaja@example.ee',
    message: 'Palju õnne',
    deliveryDate: dateIn(3),
  };
  await ok(send(A, 'POST', '/basket/add-product', { productId: voucher, quantity: 1, giftCard: voucherLine }));
  await ok(send(A, 'POST', '/basket/add-gift-card', { code: await giftCard(t, 500) }));
  const placed = await ok(
    t.app.inject({
      method: 'POST',
      url: '/checkout',
      remoteAddress: A.ip,
      headers: { authorization: `Bearer ${A.token}`, store: 'WEB' },
      payload: checkoutForm(shop, { shippingName: MARKERS.shippingName, billingName: MARKERS.shippingName }),
    }),
  );
  const link = orderLink(placed.json().location);
  await ok(t.app.inject({ method: 'GET', url: link.path }));
  await t.drainJobs();
  const orderRow = await db.selectFrom('customer_order').select('code').where('id', '=', link.orderId).executeTakeFirstOrThrow();
  const order: PlacedOrder = { ...link, code: orderRow.code!, who };
  // And a line left in A's basket.
  await ok(send(A, 'POST', '/basket/add-product', { productId: book, quantity: 2 }));

  // A's saved card, trial subscription and a take of an audiobook.
  const customerA = asCustomer(A);
  const cardId = await saveCard(s, customerA);
  const subscribed = await ok(send(A, 'POST', '/subscription', { planId: plans.AUDIO1, cardId }), 201);
  const subscriptionId = subscribed.json().id as number;
  await ok(send(A, 'POST', `/subscription/${subscriptionId}/take`, { productId: takenAudiobook }), 201);

  // A's downloads and a link to the e-book.
  const downloads = (await ok(send(A, 'GET', '/download'))).json() as Array<{ id: string; productId: number; source: string }>;
  expect(downloads.map((item) => item.source).sort()).toEqual(['ORDER', 'SUBSCRIPTION']);
  const downloadId = downloads.find((item) => item.productId === ebook)!.id;
  const linkUrl = new URL((await ok(send(A, 'GET', `/download/${downloadId}/link`))).json().url as string).pathname;

  // A's comment and rating, wishlist line, back-in-stock request, and an email change waiting for its link.
  const comment = await ok(send(A, 'POST', `/product/${commented}/comments`, { body: MARKERS.commentText, rating: 5 }), 201);
  await ok(send(A, 'POST', '/wishlist', { productId: commented }), 201);
  const request = await ok(send(A, 'POST', '/back-in-stock', { productId: soldOut }), 201);
  const pendingEmail = uniqueEmail('owner-a-new');
  await ok(send(A, 'PUT', '/user/me', { email: pendingEmail, currentPassword: GOOD_PASSWORD }));
  const mail: ParsedMail = await mailTo(t, pendingEmail);
  const emailToken = /[?&]token=([A-Za-z0-9_-]+)/.exec(mail.text ?? '')![1]!;

  a = {
    addressId: address.json().id,
    order,
    downloadId,
    link: linkUrl,
    cardId,
    subscriptionId,
    takenAudiobook,
    otherAudiobook,
    commented,
    commentId: comment.json().id,
    wished: commented,
    backInStockId: request.json().id,
    soldOut,
    emailToken,
    pendingEmail,
  };

  // A guest's own order and basket (its token is a bearer credential: nobody else sends it).
  guestOrder = await placeOrder(t, shop, { ip: '198.51.100.15' }, [[book, 1]], {
    form: { shippingName: MARKERS.shippingName, billingName: MARKERS.shippingName },
  });
  const guestBasket = await fill(t, { ip: '198.51.100.15' }, [[book, 3]]);
  G = { name: 'guest G', store: 'WEB', ip: '198.51.100.15', basketToken: guestBasket.token };

  // Companies.
  const masterX = await companyMaster(t, 'BUSINESS');
  MA = actor('master of X', masterX);
  const employeeEmail = uniqueEmail('employee-x');
  const { id: employeeId } = await invite(t, masterX.token, employeeEmail);
  EA = { ...actor('employee of X', { token: await acceptInvitation(t, employeeEmail) }), accountId: employeeId, email: employeeEmail };
  MAid = ((await ok(send(MA, 'GET', '/company-user'))).json() as Array<{ id: number; role: string }>).find(
    (user) => user.role === 'MASTER',
  )!.id;
  MB = actor('master of Y', await companyMaster(t, 'BUSINESS'));
  M2 = actor('business master of WEB2', await createCustomer(db, { kind: 'BUSINESS', store: 'WEB2' }), 'WEB2');
  const masterW = await companyMaster(t, 'WHOLESALE');
  WA = actor('wholesale master of W', masterW);
  const wholesaleEmployee = uniqueEmail('employee-w');
  await invite(t, masterW.token, wholesaleEmployee);
  WE = actor('wholesale employee of W', { token: await acceptInvitation(t, wholesaleEmployee) });
  WB = actor('wholesale master of V', await companyMaster(t, 'WHOLESALE'));
  const sub = await ok(
    send(WA, 'POST', '/sub-company', {
      name: MARKERS.subCompany,
      addresses: [{ street: MARKERS.subCompanyStreet, city: 'Tartu', postcode: '51007', countryCode: 'EE' }],
    }),
  );
  subCompanyId = sub.json().id;

  secrets = [...Object.values(MARKERS), A.email, pendingEmail, a.emailToken, employeeEmail, wholesaleEmployee, G.basketToken!];
}, 120_000);

afterAll(async () => {
  await s?.close();
  await smtp?.close();
  if (fileDir) rmSync(fileDir, { recursive: true, force: true });
});

/** Everything A (and the companies, and the guest) can read of their own things, as they read it. */
async function ownersView(): Promise<Record<string, unknown>> {
  const views: Record<string, unknown> = {};
  const read = async (label: string, who: Actor, url: string) => {
    const response = await send(who, 'GET', url);
    expect(response.statusCode, `${label} ${url}: ${response.body}`).toBe(200);
    views[`${label} ${url}`] = response.json();
  };
  for (const url of [
    '/user/me',
    '/client-account/address',
    '/order',
    `/order/${a.order.code}`,
    '/bought-product',
    '/download',
    '/subscription-credit-card',
    '/subscription',
    `/subscription/${a.subscriptionId}/take`,
    `/product/${a.commented}/comments`,
    `/product/${a.commented}/rating`,
    '/wishlist',
    '/back-in-stock',
    '/basket',
    '/virtual-gift-card',
  ]) {
    await read('A', A, url);
  }
  await read('G', G, '/basket');
  await read('G', { ...G, basketToken: undefined }, `/order/${guestOrder.code}?checksum=${guestOrder.checksum}`);
  await read('MA', MA, '/company-user');
  await read('WA', WA, '/company-user');
  await read('WA', WA, '/sub-company');
  await read('EA', EA, '/user/me');
  return views;
}

interface Attempt {
  route: string;
  method: Method;
  url: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** The status each actor gets; an actor not named here is not sent (its case is the route's design, see the notes). */
  expect: Array<[Actor, number]>;
}

/** Every id-taking route of a customer's things, with A's ids, and what each caller is answered. */
function customerAttempts(): Attempt[] {
  const others = (b: number, c: number, g: number): Array<[Actor, number]> => [
    [B, b],
    [C, c],
    [guest, g],
  ];
  // A real checksum, of another order: the guest's.
  const foreignChecksum = guestOrder.checksum;
  const orderQuery = `orderId=${a.order.orderId}&checksum=${foreignChecksum}`;
  return [
    {
      route: 'PUT /client-account/address/{id}',
      method: 'PUT',
      url: `/client-account/address/${a.addressId}`,
      body: { kind: 'BILLING', name: 'X', phone: '+372 5000 0000', address: 'Y', city: 'Z', postcode: '10000', countryNavCode: 'EE' },
      expect: others(404, 404, 401),
    },
    {
      route: 'DELETE /client-account/address/{id}',
      method: 'DELETE',
      url: `/client-account/address/${a.addressId}`,
      expect: others(404, 404, 401),
    },
    { route: 'GET /order/{code}', method: 'GET', url: `/order/${a.order.code}`, expect: others(404, 404, 404) },
    {
      route: 'GET /order/{code}?checksum (another order’s)',
      method: 'GET',
      url: `/order/${a.order.code}?checksum=${foreignChecksum}`,
      expect: others(404, 404, 404),
    },
    { route: 'POST /order/{code}/repeat', method: 'POST', url: `/order/${a.order.code}/repeat`, expect: others(404, 404, 404) },
    {
      route: 'POST /order/{code}/repeat?checksum (another order’s)',
      method: 'POST',
      url: `/order/${a.order.code}/repeat?checksum=${foreignChecksum}`,
      expect: others(404, 404, 404),
    },
    // The order's own checksum is its guest link, but in its own store only.
    {
      route: 'GET /order/{code}?checksum (its own, in the other store)',
      method: 'GET',
      url: `/order/${a.order.code}?checksum=${a.order.checksum}`,
      expect: [
        [C, 404],
        [guestOfWeb2, 404],
      ],
    },
    {
      route: 'POST /order/{code}/repeat?checksum (its own, in the other store)',
      method: 'POST',
      url: `/order/${a.order.code}/repeat?checksum=${a.order.checksum}`,
      expect: [
        [C, 404],
        [guestOfWeb2, 404],
      ],
    },
    {
      route: 'GET /bank/create-form (orderId, another checksum)',
      method: 'GET',
      url: `/bank/create-form?${orderQuery}`,
      expect: others(404, 404, 404),
    },
    {
      route: 'GET /bank/return-internal (orderId, another checksum)',
      method: 'GET',
      url: `/bank/return-internal?${orderQuery}`,
      expect: others(404, 404, 404),
    },
    {
      route: 'POST /bank/payment-result (orderId, another checksum)',
      method: 'POST',
      url: '/bank/payment-result',
      body: { orderId: a.order.orderId, checksum: foreignChecksum },
      expect: others(404, 404, 404),
    },
    { route: 'GET /download/{id}/link', method: 'GET', url: `/download/${a.downloadId}/link`, expect: others(404, 404, 401) },
    // The link is the credential; a bearer of somebody else is refused (documented 403).
    {
      route: 'GET /direct-download/{token} (with a bearer)',
      method: 'GET',
      url: a.link,
      expect: [
        [B, 403],
        [C, 403],
      ],
    },
    {
      route: 'PUT /subscription-credit-card/{id}/default',
      method: 'PUT',
      url: `/subscription-credit-card/${a.cardId}/default`,
      expect: others(404, 404, 401),
    },
    {
      route: 'DELETE /subscription-credit-card/{id}',
      method: 'DELETE',
      url: `/subscription-credit-card/${a.cardId}`,
      expect: others(404, 404, 401),
    },
    {
      route: 'GET /subscription-credit-card/return (cardId, made-up checksum)',
      method: 'GET',
      url: `/subscription-credit-card/return?cardId=${a.cardId}&checksum=${'0'.repeat(64)}`,
      expect: others(404, 404, 404),
    },
    // A card id inside a body: somebody else's card is an unknown card (documented 422).
    {
      route: 'POST /subscription {cardId}',
      method: 'POST',
      url: '/subscription',
      body: { planId: plans.AUDIO1, cardId: a.cardId },
      expect: others(422, 422, 401),
    },
    {
      route: 'PUT /subscription/{id}/plan',
      method: 'PUT',
      url: `/subscription/${a.subscriptionId}/plan`,
      body: { planId: plans.AUDIOMAX },
      expect: others(404, 404, 401),
    },
    { route: 'DELETE /subscription/{id}', method: 'DELETE', url: `/subscription/${a.subscriptionId}`, expect: others(404, 404, 401) },
    { route: 'GET /subscription/{id}/take', method: 'GET', url: `/subscription/${a.subscriptionId}/take`, expect: others(404, 404, 401) },
    {
      route: 'POST /subscription/{id}/take',
      method: 'POST',
      url: `/subscription/${a.subscriptionId}/take`,
      body: { productId: a.otherAudiobook },
      expect: others(404, 404, 401),
    },
    {
      route: 'DELETE /subscription/{id}/take?productId',
      method: 'DELETE',
      url: `/subscription/${a.subscriptionId}/take?productId=${a.takenAudiobook}`,
      expect: others(404, 404, 401),
    },
    {
      route: 'DELETE /product/{id}/comments/{commentId}',
      method: 'DELETE',
      url: `/product/${a.commented}/comments/${a.commentId}`,
      expect: others(404, 404, 401),
    },
    { route: 'DELETE /back-in-stock/{id}', method: 'DELETE', url: `/back-in-stock/${a.backInStockId}`, expect: others(404, 404, 401) },
    // A client is told at its own address only (documented 422); a guest may ask for any address (by design).
    {
      route: 'POST /back-in-stock {email of A}',
      method: 'POST',
      url: '/back-in-stock',
      body: { productId: a.soldOut, email: A.email },
      expect: [
        [B, 422],
        [C, 422],
      ],
    },
    // Another user's token is documented as a 400.
    {
      route: 'POST /user/me/confirm-email {token}',
      method: 'POST',
      url: '/user/me/confirm-email',
      body: { token: a.emailToken },
      expect: others(400, 400, 401),
    },
    // The caller's own wishlist: a product not on it is a 204 that changes nothing of A's.
    { route: 'DELETE /wishlist/{productId}', method: 'DELETE', url: `/wishlist/${a.wished}`, expect: others(204, 204, 401) },
    {
      route: 'DELETE /product/{id}/rating',
      method: 'DELETE',
      url: `/product/${a.commented}/rating`,
      expect: others(200, 200, 401),
    },
  ];
}

/** The company routes: employees on their own company, masters of other companies and stores, retail customers. */
function companyAttempts(): Attempt[] {
  const invitation = { email: uniqueEmail('sweep-invite'), firstName: 'Uus', lastName: 'Inimene', role: 'EMPLOYEE' };
  const onUsers = (): Array<[Actor, number]> => [
    [EA, 403],
    [WE, 403],
    [B, 403],
    [MB, 404],
    [WB, 404],
    [M2, 404],
  ];
  const onSubCompany: Array<[Actor, number]> = [
    [WE, 403],
    [MA, 403],
    [EA, 403],
    [B, 403],
    [WB, 404],
  ];
  return [
    {
      route: 'GET /company-user (employee)',
      method: 'GET',
      url: '/company-user',
      expect: [
        [EA, 403],
        [WE, 403],
        [B, 403],
        [C, 403],
      ],
    },
    {
      route: 'POST /company-user (employee)',
      method: 'POST',
      url: '/company-user',
      body: invitation,
      expect: [
        [EA, 403],
        [WE, 403],
        [B, 403],
        [C, 403],
      ],
    },
    {
      route: 'PUT /company-user/{id} (an employee)',
      method: 'PUT',
      url: `/company-user/${EA.accountId}`,
      body: { firstName: 'Muudetud' },
      expect: onUsers(),
    },
    {
      route: 'PUT /company-user/{id} (self-promotion)',
      method: 'PUT',
      url: `/company-user/${EA.accountId}`,
      body: { role: 'MASTER' },
      expect: [[EA, 403]],
    },
    {
      route: 'PUT /company-user/{id} (the master)',
      method: 'PUT',
      url: `/company-user/${MAid}`,
      body: { role: 'EMPLOYEE' },
      expect: onUsers(),
    },
    { route: 'DELETE /company-user/{id} (an employee)', method: 'DELETE', url: `/company-user/${EA.accountId}`, expect: onUsers() },
    { route: 'DELETE /company-user/{id} (the master)', method: 'DELETE', url: `/company-user/${MAid}`, expect: onUsers() },
    {
      route: 'GET /sub-company',
      method: 'GET',
      url: '/sub-company',
      expect: [
        [WE, 403],
        [MA, 403],
        [B, 403],
      ],
    },
    {
      route: 'POST /sub-company',
      method: 'POST',
      url: '/sub-company',
      body: { name: 'Võõras' },
      expect: [
        [WE, 403],
        [MA, 403],
        [B, 403],
      ],
    },
    {
      route: 'PUT /sub-company/{id}',
      method: 'PUT',
      url: `/sub-company/${subCompanyId}`,
      body: { name: 'Võõras', addresses: [] },
      expect: onSubCompany,
    },
    { route: 'DELETE /sub-company/{id}', method: 'DELETE', url: `/sub-company/${subCompanyId}`, expect: onSubCompany },
  ];
}

/** What each of the others' own lists shows: nothing of A's (they own nothing of the kind). */
async function expectOthersSeeNothing() {
  const empty = [
    '/client-account/address',
    '/order',
    '/bought-product',
    '/download',
    '/subscription-credit-card',
    '/subscription',
    '/wishlist',
    '/back-in-stock',
    '/virtual-gift-card',
  ];
  for (const who of [B, C]) {
    for (const url of empty) {
      const response = await ok(send(who, 'GET', url));
      expect(response.json(), `${who.name} ${url}`).toEqual([]);
    }
    const basket = await ok(send(who, 'GET', '/basket'));
    expect(basket.json().items, `${who.name} /basket`).toEqual([]);
    const comments = await ok(send(who, 'GET', `/product/${a.commented}/comments`));
    expect(comments.json().some((comment: { own: boolean }) => comment.own)).toBe(false);
    for (const url of ['/client-account/export', '/user/me', `/product/${a.commented}/rating`])
      expectNoLeak(await ok(send(who, 'GET', url)), `${who.name} ${url}`);
  }
  // A guest in the other store with G's token gets no basket of G's; C merging it in WEB2 takes nothing.
  const elsewhere = await ok(send({ ...G, store: 'WEB2', ip: C.ip }, 'GET', '/basket'));
  expect(elsewhere.json().items).toEqual([]);
  const merged = await ok(send({ ...C, basketToken: G.basketToken }, 'POST', '/basket/merge'));
  expect(merged.json().items).toEqual([]);
  // B's basket-token header is ignored for a logged-in client: B's own (empty) basket answers.
  expect((await ok(send({ ...B, basketToken: G.basketToken }, 'GET', '/basket'))).json().items).toEqual([]);
  // Other companies' lists hold nothing of X's or W's.
  for (const who of [MB, WB, M2]) {
    const users = await ok(send(who, 'GET', '/company-user'));
    expect(users.json()).toHaveLength(1);
    expectNoLeak(users, `${who.name} /company-user`);
  }
  const subCompanies = await ok(send(WB, 'GET', '/sub-company'));
  expect(subCompanies.json()).toEqual([]);
}

describe('every id-taking route, called with ids the caller does not own', () => {
  it('answers everyone else the documented 4xx, leaking nothing, and changes nothing of the owner’s', async () => {
    const before = await ownersView();
    for (const attempt of [...customerAttempts(), ...companyAttempts()]) {
      for (const [who, status] of attempt.expect) {
        const label = `${attempt.route} as ${who.name}`;
        const response = await send(who, attempt.method, attempt.url, attempt.body, attempt.headers);
        if (status >= 400) expectRefused(response, status, label);
        else {
          expect(response.statusCode, `${label}: ${response.body}`).toBe(status);
          expectNoLeak(response, label);
        }
      }
    }
    await expectOthersSeeNothing();
    expect(await ownersView()).toEqual(before);
  }, 120_000);

  it('lets the owner do all of it with the same ids (the ids were real)', async () => {
    const own = async (who: Actor, method: Method, url: string, status: number, body?: unknown) => {
      const response = await send(who, method, url, body);
      expect(response.statusCode, `${method} ${url} as ${who.name}: ${response.body}`).toBe(status);
      return response;
    };
    const orderQuery = `orderId=${a.order.orderId}&checksum=${a.order.checksum}`;
    await own(A, 'GET', `/order/${a.order.code}`, 200);
    await own(guest, 'GET', `/order/${a.order.code}?checksum=${a.order.checksum}`, 200);
    await own(A, 'POST', `/order/${a.order.code}/repeat`, 200);
    await own(guest, 'POST', '/bank/payment-result', 200, { orderId: a.order.orderId, checksum: a.order.checksum });
    await own(guest, 'GET', `/bank/create-form?${orderQuery}`, 200);
    await own(A, 'GET', `/download/${a.downloadId}/link`, 200);
    await own(A, 'GET', a.link, 200);
    await own(A, 'PUT', `/client-account/address/${a.addressId}`, 200, {
      kind: 'BILLING',
      name: 'Anna',
      phone: '+372 5000 0000',
      address: 'Uus 1',
      city: 'Tartu',
      postcode: '51007',
      countryNavCode: 'EE',
    });
    await own(A, 'PUT', `/subscription-credit-card/${a.cardId}/default`, 200);
    await own(A, 'GET', `/subscription/${a.subscriptionId}/take`, 200);
    // Unlimited audio from now on (a trial's upgrade costs nothing), so there is something left to take.
    await own(A, 'PUT', `/subscription/${a.subscriptionId}/plan`, 200, { planId: plans.AUDIOMAX });
    await own(A, 'POST', `/subscription/${a.subscriptionId}/take`, 201, { productId: a.otherAudiobook });
    // An audiobook stays with the subscription (409): past the ownership check.
    await own(A, 'DELETE', `/subscription/${a.subscriptionId}/take?productId=${a.takenAudiobook}`, 409);
    await own(A, 'POST', '/user/me/confirm-email', 200, { token: a.emailToken });
    await own(A, 'DELETE', `/product/${a.commented}/comments/${a.commentId}`, 204);
    await own(A, 'DELETE', `/back-in-stock/${a.backInStockId}`, 204);
    await own(A, 'DELETE', `/wishlist/${a.wished}`, 204);
    expect((await own(A, 'GET', '/wishlist', 200)).json()).toEqual([]);
    await own(A, 'DELETE', `/subscription/${a.subscriptionId}`, 200);
    await own(A, 'DELETE', `/subscription-credit-card/${a.cardId}`, 204);
    await own(A, 'DELETE', `/client-account/address/${a.addressId}`, 204);
    await own(MA, 'PUT', `/company-user/${EA.accountId}`, 200, { firstName: 'Muudetud' });
    await own(MA, 'DELETE', `/company-user/${EA.accountId}`, 200);
    await own(WA, 'PUT', `/sub-company/${subCompanyId}`, 200, { name: 'Uus nimi' });
    await own(WA, 'DELETE', `/sub-company/${subCompanyId}`, 200);
  }, 60_000);
});
