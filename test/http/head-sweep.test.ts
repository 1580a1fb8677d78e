import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyReply, FastifyRequest, LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GetRoute } from '../../src/http/head-requests.js';
import { seedDemo } from '../../src/demo/seed.js';
import { systemClock } from '../../src/infra/clock.js';
import { createFileStore } from '../../src/infra/file-store/index.js';
import { newToken } from '../../src/infra/tokens.js';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { finishPendingPayment } from '../../src/modules/payments/test-gateway/test-gateway.repository.js';
import { eventFeedCommand } from '../../src/modules/integrations/index.js';
import { sitemapCommand } from '../../src/modules/sitemap/index.js';
import { orderChecksum } from '../../src/modules/orders/checksum.js';
import { createEngine, foldAllQueued } from '../../src/modules/search/index.js';
import { changeLog, type ChangeLog } from '../helpers/change-log.js';
import { createCustomer } from '../helpers/customers.js';
import { SWEEP_ENV } from '../helpers/generous-limits.js';
import { insertOrder } from '../helpers/order-fixtures.js';
import { ATTEMPT_TABLES } from '../helpers/row-tracker.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { exportUser } from '../data-export/fixtures.js';
import { importLines } from '../basket/import-helpers.js';

// A HEAD changes nothing (docs/architecture.md, "A HEAD changes nothing"). This sweep sends a HEAD
// to every GET route the app registered (app.getRoutes, so a new route is in it without a word
// here), as a guest and with the route's credential, on the demo shop with an order of each kind,
// and fails on any row a HEAD inserted, updated or deleted (a trigger per table logs every write
// in the writer's transaction: change-log.ts; a write rolled back is none), on a write a buffer
// made later (views, banner counts, redirect hits, flushed when the app closes), and on a planted
// GET that writes: a sweep that could not see it would prove nothing. A buffer's write shows on
// whichever HEAD runs when it is written (the operators' redirect read flushes the hits; views are
// written within a second), or at the close: the table names the culprit, the request may not.
// Undoing an earlier HEAD fix fails it: the create-form one (an order's status, a job, its events),
// the product page's VIEW and /external-url's hit, and the gateway's word applied by a HEAD of the bank
// return (an order marked paid), the payment callback (a callback recorded) or the card return (a card saved):
// their payment and card are settled at the test gateway and not yet told to the shop. It cannot see /auth/external's (no provider is
// configured here, so its GET is a 404 that writes nothing): test/social/head-requests.test.ts does.
// Routes that answer only a 4xx without data of their own get it (FIXTURED), so their HEAD reaches the handler.

const CHECKSUM_SECRET = 'head-sweep-order-checksum-secret-0123456789';
const SESSION = 'headsweepsession0123456789';
/** A plan of e-books on a shelf (the demo has no subscription plans). */
const SHELF_PLAN = { code: 'HEADSHELF', kind: 'EBOOK_SHELF', titles: { et: 'Riiul' }, shelfSize: 2, monthlyPrice: 5, stores: ['WEB'] };

/**
 * Writes any request may make: counting it against a limit per address, making a signing secret on
 * first use (ATTEMPT_TABLES), and a credential's last use, which a HEAD is as much as a GET.
 */
const ANYWHERE = new Set([...Object.keys(ATTEMPT_TABLES), 'api_key', 'event_feed_client']);

/** Writes a HEAD of one route may make, and why they change nothing the GET is for. */
const ALLOWED: Record<string, { tables: string[]; why: string }> = {
  '/site/ready': {
    tables: ['search_state'],
    why: 'readiness marks a finished first build of the search index ready: maintenance any probe does, the same whoever asks',
  },
  '/integration/events': {
    tables: ['integration_cursor', 'integration_event'],
    why: "positions given to committed events (the feed's sequencer, which any read runs first): no client's cursor moves",
  },
};

/** Path parameters that reach something in the demo shop (else 1). */
const PARAMS: Record<string, Record<string, string>> = {
  '/product/code/:code': { code: '1000001' },
  '/shop/:code': { code: 'HPS' },
  '/shop/:code/schedule': { code: 'HPS' },
  '/content-page/:slug': { slug: 'meist' },
  '/blog/:slug': { slug: 'sugise-lugemisnimekiri' },
  '/news/:slug': { slug: 'uus-pood-tartus' },
  '/campaign/code/:code': { code: 'WEB-BOOK-WEEK' },
  '/product-list/code/:code': { code: 'WEB-BOOK-CLUB' },
  '/product-list/code/:code/products': { code: 'WEB-BOOK-CLUB' },
  '/admin/content/redirects/:code': { code: 'DEMO-OLD-BLOG' },
  '/payment/:gateway/callback': { gateway: 'test' },
  '/sitemap/:store/:file': { store: 'WEB', file: 'sitemap.xml' },
  '/qr-code/:code': { code: 'product-1000001' },
  '/discount-page/:slug': { slug: 'raamatunadal' },
  '/composite-page/:slug': { slug: 'head-sweep' },
};

/** Routes that answer only a 4xx without the fixtures beforeAll makes for them. */
const FIXTURED = [
  '/auth/verify-email-meta',
  '/company-user',
  '/sub-company',
  '/composite-page/:slug',
  '/sitemap/:store/:file',
  '/download/:id/link',
  '/direct-download/:token',
  '/payment/test/pay/:reference',
  '/payment/:gateway/callback',
  '/order/:code/download/:id/link',
  '/subscription-credit-card/return',
  '/subscription/:id/take',
];

/** Routes whose own caller is not a retail customer: the company's master users. */
const CALLER: Record<string, 'business' | 'wholesale'> = { '/company-user': 'business', '/sub-company': 'wholesale' };

let t: TestApp;
let log: ChangeLog;
/** FILE_STORE_DIR: the sitemap's files (and any other) go here, never into the working tree. */
const files = mkdtempSync(join(tmpdir(), 'storefront-head-sweep-'));
const credentials: Record<string, string> = {};
/** Query strings (and path values) that need the fixtures made in beforeAll. */
const queries: Record<string, string> = {
  '/autocomplete': 'term=raamat',
  '/product-dynamic-filter/search-author': 'term=a',
  '/product-dynamic-filter/search-series': 'term=a',
  '/product-dynamic-filter/search-publisher': 'term=a',
  '/recommendation': 'productId=1',
  '/external-url': 'path=/uudised/blogi.php',
  '/virtual-gift-card/balance': 'code=HEADSWEEP0000',
  '/auth/external': 'authclient=google',
  '/subscription-credit-card/return': 'cardId=1&checksum=0',
  '/admin/ctr': 'from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z',
};

beforeAll(async () => {
  t = await createTestApp({
    env: { ...SWEEP_ENV, ORDER_CHECKSUM_SECRET: CHECKSUM_SECRET, FILE_STORE_DIR: files },
    beforeReady(app) {
      const write = async () => {
        await sql`update search_state set changed_at = changed_at where id = 1`.execute(t.database.db);
      };
      // The planted routes: one that writes and says nothing (the sweep must find it), one that says so.
      app.get('/head-sweep/unmarked', async () => {
        await write();
        return {};
      });
      app.get('/head-sweep/marked', { config: { getWrites: 'a planted write' } }, async (_r: FastifyRequest, reply: FastifyReply) => {
        await write();
        return reply.send({});
      });
    },
  });
  const db = t.database.db;
  await seedDemo(t.database, { now: Date.now() });
  await foldAllQueued(t.database, createEngine(t.database));
  const customer = await createCustomer(db);
  credentials.customer = `Bearer ${customer.token}`;
  const customerHeaders = { store: 'WEB', authorization: credentials.customer };
  credentials.operator = `Bearer ${await createApiKey(db, 'head-sweep', Date.now())}`;
  const lines: string[] = [];
  await eventFeedCommand({ db, clock: systemClock }, ['add', 'head-sweep'], (line) => lines.push(line));
  credentials.feed = `Bearer ${lines.at(-1)!}`;
  credentials.export = (await exportUser(db)).authorization;
  credentials.business = `Bearer ${(await createCustomer(db, { kind: 'BUSINESS' })).token}`;
  credentials.wholesale = `Bearer ${(await createCustomer(db, { kind: 'WHOLESALE' })).token}`;
  // A user who registered and has not yet followed the mailed link (verify-email-meta's page).
  const unverified = await createCustomer(db);
  const verification = newToken();
  queries['/auth/verify-email-meta'] = `verificationToken=${verification.token}`;
  await db
    .updateTable('app_user')
    .set({
      verification_token_hash: verification.hash,
      verification_expires_at: Date.now() + 86_400_000,
      verification_client_account_id: unverified.clientAccountId,
    })
    .where(
      'id',
      '=',
      (await db.selectFrom('client_account').select('user_id').where('id', '=', unverified.clientAccountId).executeTakeFirstOrThrow())
        .user_id,
    )
    .execute();
  // A landing page of blocks (the demo has none) and the store's sitemap files.
  const page = { code: 'HEAD-SWEEP', store: 'WEB', slug: 'head-sweep', translations: { et: { title: 'Pealkiri' } }, blocks: [] };
  const imported = await t.app.inject({
    method: 'POST',
    url: '/admin/import/composite-pages',
    headers: { authorization: credentials.operator, 'content-type': 'application/x-ndjson' },
    payload: `${JSON.stringify(page)}\n`,
  });
  expect(imported.json(), imported.body).toMatchObject({ errorCount: 0 });
  const fileStore = await createFileStore(t.config.fileStore);
  expect(await sitemapCommand({ db, fileStore, serviceUrl: 'https://api.example' }, ['generate', '--store=WEB'], () => {})).toBe(0);
  // A guest's order waiting for its payment (the bank links), and the customer's own order.
  const product = await db.selectFrom('product').select(['id', 'code']).where('code', '=', '1000001').executeTakeFirstOrThrow();
  const line = { productId: Number(product.id), productCode: product.code };
  const guestOrder = await insertOrder(db, { status: 'NEW', lines: [line] });
  const ownOrder = await insertOrder(db, { status: 'COMPLETED', lines: [line], clientAccountId: customer.clientAccountId });
  const checksum = orderChecksum(CHECKSUM_SECRET).of(guestOrder.id);
  queries['/bank/create-form'] = `orderId=${guestOrder.id}&checksum=${checksum}`;
  PARAMS['/order/:code'] = { code: ownOrder.code };
  // The customer's e-book: a paid order entitled to it, its file uploaded (the upload's job lists it),
  // a signed link to it (/download/{id}/link's answer, the direct download's token).
  const ebook = await db.selectFrom('product').select(['id', 'code']).where('type', '=', 'EBOOK').orderBy('id').executeTakeFirstOrThrow();
  const ebookLine = { productId: Number(ebook.id), productCode: ebook.code, digital: true };
  const ebookOrder = await insertOrder(db, { status: 'COMPLETED', lines: [ebookLine], clientAccountId: customer.clientAccountId });
  await db
    .insertInto('order_entitlement')
    .values({ order_id: ebookOrder.id, product_id: Number(ebook.id), client_account_id: customer.clientAccountId, created_at: Date.now() })
    .execute();
  const uploaded = await t.app.inject({
    method: 'PUT',
    url: `/admin/product-files/${ebook.code}/EPUB`,
    headers: { authorization: credentials.operator, 'content-type': 'application/octet-stream' },
    payload: Buffer.from('an e-book'),
  });
  expect(uploaded.statusCode, uploaded.body).toBe(200);
  await t.drainJobs();
  const items = await t.app.inject({ method: 'GET', url: '/download', headers: { store: 'WEB', authorization: credentials.customer } });
  const item = (items.json() as Array<{ id: string }>)[0]!;
  PARAMS['/download/:id/link'] = { id: item.id };
  const link = await t.app.inject({
    method: 'GET',
    url: `/download/${item.id}/link`,
    headers: { store: 'WEB', authorization: credentials.customer },
  });
  expect(link.statusCode, link.body).toBe(200);
  PARAMS['/direct-download/:token'] = { token: new URL((link.json() as { url: string }).url).pathname.split('/').at(-1)! };
  // A guest's order whose payment the test gateway settled and the shop has not heard of (no callback, no
  // return yet): its page, and the callback and the return that would mark the order paid.
  const paying = await insertOrder(db, { status: 'NEW', lines: [line] });
  await db.updateTable('customer_order').set({ payment_method: 'TEST_GATEWAY' }).where('id', 'in', [paying.id, guestOrder.id]).execute();
  const payingQuery = `orderId=${paying.id}&checksum=${orderChecksum(CHECKSUM_SECRET).of(paying.id)}`;
  const reference = await settledAtGateway(await ok(t.app.inject({ method: 'GET', url: `/bank/create-form?${payingQuery}` })));
  PARAMS['/payment/test/pay/:reference'] = { reference };
  queries['/payment/:gateway/callback'] = `payment_reference=${reference}`;
  queries['/bank/return-internal'] = payingQuery;
  // A guest's paid order of the e-book: its list and a link to its file (the order mail's way, by checksum).
  const guestEbookOrder = await insertOrder(db, { status: 'COMPLETED', lines: [ebookLine] });
  await db
    .insertInto('order_entitlement')
    .values({ order_id: guestEbookOrder.id, product_id: Number(ebook.id), client_account_id: null, created_at: Date.now() })
    .execute();
  const guestEbookQuery = `checksum=${orderChecksum(CHECKSUM_SECRET).of(guestEbookOrder.id)}`;
  const guestItems = await ok(t.app.inject({ method: 'GET', url: `/order/${guestEbookOrder.code}/download?${guestEbookQuery}` }));
  PARAMS['/order/:code/download'] = { code: guestEbookOrder.code };
  queries['/order/:code/download'] = guestEbookQuery;
  PARAMS['/order/:code/download/:id/link'] = { code: guestEbookOrder.code, id: (guestItems.json() as Array<{ id: string }>)[0]!.id };
  queries['/order/:code/download/:id/link'] = guestEbookQuery;
  // The customer's saved card (the gateway's page paid, the shopper back) and a subscription paid with it;
  // and a second card the gateway saved, whose shopper has not come back: the return would save it.
  const saveCard = async () => {
    const started = await ok(t.app.inject({ method: 'POST', url: '/subscription-credit-card', headers: customerHeaders }));
    const payment = await db
      .selectFrom('test_gateway_payment')
      .select('return_url')
      .where('reference', '=', await settledAtGateway(started))
      .executeTakeFirstOrThrow();
    return new URL(payment.return_url);
  };
  const saved = await saveCard();
  const back = await t.app.inject({ method: 'GET', url: `${saved.pathname}${saved.search}` });
  expect(back.headers.location, back.body).toMatch(/saved=true/);
  queries['/subscription-credit-card/return'] = (await saveCard()).search.slice(1);
  expect((await importLines(t, 'subscription-plans', [SHELF_PLAN])).json()).toMatchObject({ errorCount: 0 });
  const plan = await db.selectFrom('subscription_plan').select('id').where('code', '=', SHELF_PLAN.code).executeTakeFirstOrThrow();
  const cardId = Number(saved.searchParams.get('cardId'));
  const subscribed = await t.app.inject({
    method: 'POST',
    url: '/subscription',
    headers: customerHeaders,
    payload: { planId: Number(plan.id), cardId },
  });
  expect(subscribed.statusCode, subscribed.body).toBe(201);
  const subscriptionId = String((subscribed.json() as { id: number }).id);
  PARAMS['/subscription/:id/take'] = { id: subscriptionId };
  PARAMS['/subscription/:id'] = { id: subscriptionId };
  log = await changeLog(db);
}, 180_000);
/** A response that must have succeeded (a fixture's step). */
async function ok(response: Promise<LightMyRequestResponse> | LightMyRequestResponse): Promise<LightMyRequestResponse> {
  const answered = await response;
  expect(answered.statusCode, answered.body).toBeLessThan(300);
  return answered;
}

/** The test gateway's payment a redirect form leads to, settled there as its Pay button does, without the callback. */
async function settledAtGateway(form: LightMyRequestResponse): Promise<string> {
  const reference = new URL((form.json() as { url: string }).url).pathname.split('/').at(-1)!;
  expect(await finishPendingPayment(t.database.db, reference, 'settled', Date.now())).toBe(true);
  return reference;
}

afterAll(async () => {
  await t?.close();
  rmSync(files, { recursive: true, force: true });
});

/** The credential a route's own caller sends (a customer's bearer on the shopper's routes). */
function credentialOf(url: string): string {
  // API_DOCS=operator (SWEEP_ENV): the documents are the operators'.
  if (url.startsWith('/admin/') || url.startsWith('/docs') || url === '/openapi.json') return credentials.operator!;
  if (url.startsWith('/integration/')) return credentials.feed!;
  if (url.startsWith('/export/')) return credentials.export!;
  return credentials[CALLER[url] ?? 'customer']!;
}

function urlOf(route: GetRoute): string {
  const path = route.url.replace(/:(\w+)/g, (_, name: string) => PARAMS[route.url]?.[name] ?? '1').replace('*', 'index.html');
  const query = queries[route.url];
  return query === undefined ? path : `${path}?${query}`;
}

interface Finding {
  head: string;
  status: number;
  changed: Record<string, string>;
}

/** HEADs every GET route as a guest and with its credential; what each changed that it may not. */
async function sweep(routes: readonly GetRoute[]): Promise<{ findings: Finding[]; reached: Set<string> }> {
  const findings: Finding[] = [];
  const reached = new Set<string>();
  await log.take();
  for (const route of routes) {
    for (const authorization of [undefined, credentialOf(route.url)]) {
      const url = urlOf(route);
      const headers: Record<string, string> = { store: 'WEB', 'x-session-id': SESSION };
      if (authorization) headers.authorization = authorization;
      const response = await t.app.inject({ method: 'HEAD', url, headers });
      if (response.statusCode < 400) reached.add(route.url);
      const allowed = new Set([...ANYWHERE, ...(ALLOWED[route.url]?.tables ?? [])]);
      const changed = Object.fromEntries(Object.entries(await log.take()).filter(([table]) => !allowed.has(table)));
      if (Object.keys(changed).length > 0)
        findings.push({ head: `HEAD ${url} (${authorization ? 'credential' : 'guest'})`, status: response.statusCode, changed });
    }
  }
  return { findings, reached };
}

describe('a HEAD of every GET route', () => {
  it('changes no row, now or when the buffers are written, and the sweep sees a GET that writes', async () => {
    const routes = t.app.getRoutes;
    expect(routes.length).toBeGreaterThan(120);
    const { findings, reached } = await sweep(routes);

    // The planted GET that writes without saying so is the one finding; the one that says so is none.
    expect(
      findings.map((f) => f.head),
      JSON.stringify(findings, null, 1),
    ).toEqual(['HEAD /head-sweep/unmarked (guest)', 'HEAD /head-sweep/unmarked (credential)']);
    expect(routes.find((r) => r.url === '/head-sweep/marked')?.head).toBe('without-effect');
    // A GET of it does write: the HEAD's silence is the marker's doing, not a route that does nothing.
    await t.app.inject({ method: 'GET', url: '/head-sweep/marked' });
    expect(await log.take()).toEqual({ search_state: '1 update' });

    // What is buffered (views, banner counts, redirect hits) is written when the app closes.
    await t.app.close();
    expect(await log.take(), 'written by a buffer after the HEADs').toEqual({});

    // Reaching a 4xx proves little: most routes must have answered as they do when all is well.
    const unreached = routes.filter((route) => !reached.has(route.url)).map((route) => route.url);
    expect(unreached.length, `HEAD reached only a 4xx: ${unreached.join(', ')}`).toBeLessThan(routes.length / 5);
    // Those given fixtures above reach their handlers (or, marked getWrites, answer without them).
    expect(unreached.filter((url) => FIXTURED.includes(url))).toEqual([]);
  }, 300_000);
});
