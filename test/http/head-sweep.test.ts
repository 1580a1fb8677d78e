import type { FastifyReply, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GetRoute } from '../../src/http/head-requests.js';
import { seedDemo } from '../../src/demo/seed.js';
import { systemClock } from '../../src/infra/clock.js';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { eventFeedCommand } from '../../src/modules/integrations/index.js';
import { orderChecksum } from '../../src/modules/orders/checksum.js';
import { createEngine, foldAllQueued } from '../../src/modules/search/index.js';
import { changeLog, type ChangeLog } from '../helpers/change-log.js';
import { createCustomer } from '../helpers/customers.js';
import { SWEEP_ENV } from '../helpers/generous-limits.js';
import { insertOrder } from '../helpers/order-fixtures.js';
import { ATTEMPT_TABLES } from '../helpers/row-tracker.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { exportUser } from '../data-export/fixtures.js';

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
// the product page's VIEW and /external-url's hit. It cannot see /auth/external's (no provider is
// configured here, so its GET is a 404 that writes nothing): test/social/head-requests.test.ts does.

const CHECKSUM_SECRET = 'head-sweep-order-checksum-secret-0123456789';
const SESSION = 'headsweepsession0123456789';

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
};

let t: TestApp;
let log: ChangeLog;
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
  '/auth/verify-email-meta': 'verificationToken=headsweep',
  '/auth/external': 'authclient=google',
  '/subscription-credit-card/return': 'cardId=1&checksum=0',
  '/admin/ctr': 'from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z',
};

beforeAll(async () => {
  t = await createTestApp({
    env: { ...SWEEP_ENV, ORDER_CHECKSUM_SECRET: CHECKSUM_SECRET },
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
  credentials.operator = `Bearer ${await createApiKey(db, 'head-sweep', Date.now())}`;
  const lines: string[] = [];
  await eventFeedCommand({ db, clock: systemClock }, ['add', 'head-sweep'], (line) => lines.push(line));
  credentials.feed = `Bearer ${lines.at(-1)!}`;
  credentials.export = (await exportUser(db)).authorization;
  // A guest's order waiting for its payment (the bank links), and the customer's own order.
  const product = await db.selectFrom('product').select(['id', 'code']).where('code', '=', '1000001').executeTakeFirstOrThrow();
  const line = { productId: Number(product.id), productCode: product.code };
  const guestOrder = await insertOrder(db, { status: 'NEW', lines: [line] });
  const ownOrder = await insertOrder(db, { status: 'COMPLETED', lines: [line], clientAccountId: customer.clientAccountId });
  const checksum = orderChecksum(CHECKSUM_SECRET).of(guestOrder.id);
  queries['/bank/create-form'] = `orderId=${guestOrder.id}&checksum=${checksum}`;
  queries['/bank/return-internal'] = `orderId=${guestOrder.id}&checksum=${checksum}`;
  PARAMS['/order/:code'] = { code: ownOrder.code };
  PARAMS['/order/:code/download'] = { code: guestOrder.code };
  queries['/order/:code/download'] = `checksum=${checksum}`;
  log = await changeLog(db);
}, 180_000);
afterAll(() => t?.close());

/** The credential a route's own caller sends (a customer's bearer on the shopper's routes). */
function credentialOf(url: string): string {
  // API_DOCS=operator (SWEEP_ENV): the documents are the operators'.
  if (url.startsWith('/admin/') || url.startsWith('/docs') || url === '/openapi.json') return credentials.operator!;
  if (url.startsWith('/integration/')) return credentials.feed!;
  if (url.startsWith('/export/')) return credentials.export!;
  return credentials.customer!;
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
    expect(findings.map((f) => f.head)).toEqual(['HEAD /head-sweep/unmarked (guest)', 'HEAD /head-sweep/unmarked (credential)']);
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
  }, 300_000);
});
