import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD } from '../../src/demo/accounts.js';
import { seedDemo } from '../../src/demo/seed.js';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { BlogCategoryLine, BlogPostLine, NewsLine, RedirectLine, ShopScheduleLine } from '../../src/modules/blog/content-lines.js';
import { createEngine, foldAllQueued } from '../../src/modules/search/index.js';
import { exportUser } from '../data-export/fixtures.js';
import { createCustomer, type TestCustomer } from '../helpers/customers.js';
import { ATTEMPT_TABLES, BUFFERED_TABLES, rowTracker } from '../helpers/row-tracker.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { operationsOf, type Operation } from '../http/bad-input-cases.js';
import { seeded, type Schema } from './edge-values.js';
import { ALWAYS, edgeCases, FOREIGN, problemsOf, routeTable, type Base, type Caller, type Own } from './walk-cases.js';
import {
  ADDRESS,
  asCustomer,
  belongingsOf,
  checkoutForm,
  demoShop,
  employeeOf,
  newCompany,
  paymentOf,
  type Shop,
} from './walk-fixtures.js';
import { SWEEP_ENV } from '../helpers/generous-limits.js';

// The walk of every documented operation by the callers with credentials: a retail customer, a
// wholesale company's master and its employee, the operator's API key and the analytics partner's
// export user, on the demo shop. Each operation's valid request, with the caller's own ids (an
// address, an order, a basket line, a sub-company), is changed one part at a time to a value at or
// past an edge of its schema (edge-values.ts): most pass validation and reach the database, where
// PostgreSQL and SQLite differ. Every answer must be below 500, a 4xx in the documented error shape,
// without a stack trace or SQL; a refused request must change no rows.
//
// A fixed seed picks a bounded sample per operation and caller (WALK_CASES, 6 by default);
// WALK_CASES=all sends every case (some 20,000 requests). WALK_REPORT=<file> writes every outcome there.

interface Outcome {
  operation: string;
  caller: string;
  label: string;
  status: number;
  problems: string[];
  body: string;
}

let t: TestApp;
let shop: Shop;
let callers: { retail: Caller; master: Caller; employee: Caller; operator: Caller; exporter: Caller };
/** Another company's master: what it owns is another customer's for every caller of the walk. */
let stranger: Caller;
let bases: Record<string, Base>;

/** A retail customer with an address, an order and a book in the basket; a fresh one after a refresh. */
async function retailCaller(): Promise<Caller> {
  const make = async (): Promise<Own> => {
    const owned = await belongingsOf(t, shop, await createCustomer(t.database.db));
    const customer = owned.customer;
    return {
      token: customer.token,
      paymentMethodId: paymentOf(customer),
      addressId: owned.addressId,
      orderCode: owned.orderCode,
      orderQuery: owned.orderQuery,
    };
  };
  const caller: Caller = {
    name: 'retail customer',
    own: await make(),
    headers: () => ({ authorization: `Bearer ${caller.own.token}` }),
    refresh: async () => void (caller.own = await make()),
  };
  return caller;
}

/** A wholesale master and its employee; a refresh makes what the accepted request took again. */
async function companyCallers(): Promise<{ master: Caller; employee: Caller }> {
  const make = async () => {
    const company = await newCompany(t);
    return { ...company, owned: await belongingsOf(t, shop, company.master) };
  };
  let company = await make();
  const ownOf = (person: TestCustomer): Own => ({
    token: person.token,
    paymentMethodId: paymentOf(person),
    addressId: company.owned.addressId,
    orderCode: company.owned.orderCode,
    orderQuery: company.owned.orderQuery,
    employeeId: company.employee.clientAccountId,
    subCompanyId: company.subCompanyId,
  });
  const master: Caller = {
    name: 'company master',
    own: ownOf(company.master),
    headers: () => ({ authorization: `Bearer ${master.own.token}` }),
    async refresh() {
      company = await make();
      master.own = ownOf(company.master);
      employee.own = ownOf(company.employee);
    },
  };
  const employee: Caller = {
    name: 'company employee',
    own: ownOf(company.employee),
    headers: () => ({ authorization: `Bearer ${employee.own.token}` }),
    async refresh() {
      company.employee = await employeeOf(t, company.master.companyId!);
      master.own = ownOf(company.master);
      employee.own = ownOf(company.employee);
    },
  };
  return { master, employee };
}

const addBook = (caller: Caller) => asCustomer(t, caller.own.token, 'POST', '/basket/add-product', { productId: shop.bookId, quantity: 1 });
const published = '2026-11-01T10:00:00Z';

/** Codes and slugs of the demo, where a schema's sample would only ever reach a 404. */
const DEMO_PATHS: Record<string, Record<string, string>> = {
  '/product/code/{code}': { code: '1000001' },
  '/shop/{code}': { code: 'HPS' },
  '/shop/{code}/schedule': { code: 'HPS' },
  '/content-page/{slug}': { slug: 'meist' },
  '/discount-page/{slug}': { slug: 'raamatunadal' },
  '/blog/{slug}': { slug: 'sugise-lugemisnimekiri' },
  '/news/{slug}': { slug: 'uus-pood-tartus' },
  '/qr-code/{code}': { code: 'HPS' },
  '/campaign/code/{code}': { code: 'WEB-BOOK-WEEK' },
  '/product-list/code/{code}': { code: 'WEB-BOOK-CLUB' },
  '/product-list/code/{code}/products': { code: 'WEB-BOOK-CLUB' },
  '/admin/content/redirects/{code}': { code: 'DEMO-OLD-BLOG' },
  '/admin/content/content-pages/{code}': { code: 'WALK-PAGE' },
  '/admin/content/composite-pages/{code}': { code: 'WALK-COMPOSITE' },
  '/admin/content/banners/{code}': { code: 'WALK-BANNER' },
  '/admin/content/menus/{code}': { code: 'WALK-MENU' },
  '/admin/content/{kind}/{code}': { kind: 'redirects', code: 'WALK-REDIRECT' },
  '/admin/import/{kind}': { kind: 'publishers' },
  '/admin/product-files/{productCode}/{format}': { productCode: '1000001', format: 'EPUB' },
  '/payment/{gateway}/callback': { gateway: 'test' },
  '/sitemap/{store}/{file}': { store: 'WEB', file: 'sitemap.xml' },
};

/** Bodies whose sample is refused before the rest is read. */
const DEMO_BODIES: Record<string, Record<string, unknown>> = {
  'POST /auth/login': { email: 'mari@example.com', password: DEMO_PASSWORD, web_store_nav_code: 'WEB' },
  'POST /auth/switch-web-store': { webStoreNavCode: 'WEB2' },
  'POST /basket/add-discount': { code: 'TERE10' },
  'PUT /user/me': { email: 'walk-new@example.ee' },
};

function basesFor(): Record<string, Base> {
  const demo = Object.fromEntries([
    ...Object.entries(DEMO_PATHS).flatMap(([path, values]) =>
      ['GET', 'POST', 'PUT', 'DELETE'].map((method) => [`${method} ${path}`, { path: () => values } as Base]),
    ),
    ...Object.entries(DEMO_BODIES).map(([name, body]) => [name, { body: () => body } as Base]),
  ]);
  const book = () => ({ productId: String(shop.bookId), id: String(shop.bookId) });
  const withBook: Base = {
    path: book,
    query: () => ({ productId: String(shop.bookId) }),
    body: () => ({ productId: shop.bookId, quantity: 1 }),
  };
  return {
    ...demo,
    'POST /checkout': {
      body: (own) => checkoutForm(shop, own.paymentMethodId),
      before: async (caller) => void (await addBook(caller)),
    },
    'POST /basket/add-product book': withBook,
    'POST /basket/add-product gift card': {
      body: () => ({
        productId: shop.giftCardId,
        quantity: 1,
        giftCard: {
          amount: 25,
          recipientName: 'Jaan Tamm',
          recipientEmail: 'jaan@example.ee',
          message: 'Palju õnne!',
          deliveryDate: new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10),
        },
      }),
    },
    'PUT /basket/change-quantity': { ...withBook, before: async (caller) => void (await addBook(caller)) },
    'DELETE /basket/remove-product': { ...withBook, before: async (caller) => void (await addBook(caller)) },
    'PUT /basket/delivery': { body: () => ({ deliveryMethodId: shop.courierId }) },
    'POST /wishlist': withBook,
    'DELETE /wishlist/{productId}': withBook,
    'POST /back-in-stock': withBook,
    'GET /recommendation': withBook,
    'PUT /client-account/address/{id}': { path: (own) => ({ id: String(own.addressId) }), body: () => ADDRESS, owned: true },
    'DELETE /client-account/address/{id}': { path: (own) => ({ id: String(own.addressId) }), owned: true },
    'POST /client-account/address': { body: () => ADDRESS },
    'GET /order/{code}': { path: (own) => ({ code: own.orderCode! }), owned: true },
    'POST /order/{code}/repeat': { path: (own) => ({ code: own.orderCode! }), owned: true },
    'GET /bank/create-form': { query: (own) => own.orderQuery! },
    'GET /bank/return-internal': { query: (own) => own.orderQuery! },
    'POST /bank/return-internal': { query: (own) => own.orderQuery! },
    'PUT /company-user/{id}': { path: (own) => ({ id: String(own.employeeId) }), body: () => ({ firstName: 'Tiit' }), owned: true },
    'DELETE /company-user/{id}': { path: (own) => ({ id: String(own.employeeId) }), owned: true },
    'POST /sub-company': {
      body: () => ({ name: 'Pärnu Kool', addresses: [{ street: 'Rüütli 1', city: 'Pärnu', postcode: '80010', countryCode: 'EE' }] }),
    },
    'PUT /sub-company/{id}': {
      owned: true,
      path: (own) => ({ id: String(own.subCompanyId) }),
      body: () => ({ name: 'Pärnu Kool', addresses: [{ street: 'Rüütli 1', city: 'Pärnu', postcode: '80010', countryCode: 'EE' }] }),
    },
    'DELETE /sub-company/{id}': { path: (own) => ({ id: String(own.subCompanyId) }), owned: true },
    'POST /admin/orders/{code}/status': {
      path: () => ({ code: callers.retail.own.orderCode! }),
      body: () => ({ status: 'IN_PROGRESS', createdAt: published }),
    },
    'POST /admin/orders/{code}/refund': { path: () => ({ code: callers.retail.own.orderCode! }) },
    'PUT /admin/content/content-pages/{code}': {
      path: () => ({ code: 'WALK-PAGE' }),
      body: () => ({ store: 'WEB', slug: 'walk-page', translations: { et: { title: 'Leht', body: '<p>Tekst</p>' } } }),
    },
    'PUT /admin/content/composite-pages/{code}': {
      path: () => ({ code: 'WALK-COMPOSITE' }),
      body: () => ({
        store: 'WEB',
        kind: 'COMPOSITE',
        slug: 'walk-composite',
        translations: { et: { title: 'Leht' } },
        blocks: [{ type: 'PRODUCT_COMPONENT', component: 'newest', limit: 8 }],
      }),
    },
    'PUT /admin/content/banners/{code}': {
      path: () => ({ code: 'WALK-BANNER' }),
      body: () => ({ store: 'WEB', placement: 'HEADER', position: 1, linkUrl: '/kampaania', translations: { et: { title: 'Soodus' } } }),
    },
    'PUT /admin/content/menus/{code}': {
      path: () => ({ code: 'WALK-MENU' }),
      body: () => ({ store: 'WEB', links: [{ url: '/content-page/meist', labels: { et: 'Meist' } }] }),
    },
    ...contentKindBases(),
  };
}

/** The content kinds' single edits (PUT /admin/content/{kind}/{code}): a valid import line of each. */
function contentKindBases(): Record<string, Base> {
  const kinds: Array<[string, string, Schema, Record<string, unknown>]> = [
    ['blog-categories', 'WALK-CAT', BlogCategoryLine, { store: 'WEB', slug: 'walk-cat', names: { et: 'Kategooria' } }],
    [
      'blog-posts',
      'WALK-POST',
      BlogPostLine,
      {
        store: 'WEB',
        language: 'et',
        slug: 'walk-post',
        title: 'Postitus',
        body: '<p>Tekst</p>',
        publishedAt: published,
        tags: ['raamat'],
      },
    ],
    [
      'news',
      'WALK-NEWS',
      NewsLine,
      { store: 'WEB', slug: 'walk-news', translations: { et: { title: 'Uudis', body: '<p>x</p>' } }, publishedAt: published },
    ],
    ['redirects', 'WALK-REDIRECT', RedirectLine, { store: 'WEB', path: '/walk-old', target: '/walk-new', status: 301 }],
    [
      'shop-schedules',
      'HPS',
      ShopScheduleLine,
      {
        weekly: [{ weekday: 1, opens: '09:00', closes: '18:00' }],
        exceptions: [{ date: '2026-12-24', closed: true, names: { et: 'Jõululaupäev' } }],
      },
    ],
  ];
  return Object.fromEntries(
    kinds.map(([kind, code, schema, body]) => [
      `PUT /admin/content/{kind}/{code} ${kind}`,
      { path: () => ({ kind, code }), body: () => body, bodySchema: schema },
    ]),
  );
}

beforeAll(async () => {
  t = await createTestApp({ env: { ...SWEEP_ENV } });
  await seedDemo(t.database, { now: Date.now() });
  await foldAllQueued(t.database, createEngine(t.database));
  shop = await demoShop(t);
  const db = t.database.db;
  const operatorKey = await createApiKey(db, 'credentialed-walk', Date.now());
  const exportAuthorization = (await exportUser(db)).authorization;
  callers = {
    retail: await retailCaller(),
    ...(await companyCallers()),
    operator: { name: 'operator', own: { token: operatorKey }, headers: () => ({ authorization: `Bearer ${operatorKey}` }) },
    exporter: { name: 'export user', own: { token: '' }, headers: () => ({ authorization: exportAuthorization }) },
  };
  stranger = (await companyCallers()).master;
  bases = basesFor();
}, 120_000);
afterAll(() => t?.close());

/** Who walks an operation: its own credential, or the customers for the shop's routes. */
function callersOf(operation: Operation): Caller[] {
  const path = operation.path;
  if (path.startsWith('/export/')) return [callers.exporter];
  if (path.startsWith('/admin/')) return [callers.operator];
  // The supplier's and the event feed's credentials are the bad-input sweep's (test/http).
  if (path.startsWith('/integration/')) return [];
  if (/^\/(company-user|sub-company)/.test(path)) return [callers.master, callers.employee];
  return [callers.retail, callers.master];
}

/** The operations and the base each is walked from: the content kinds' PUT once per kind. */
function walkedOperations(document: Schema & { paths: Record<string, Record<string, unknown>> }) {
  return operationsOf(document).flatMap((operation) => {
    const name = `${operation.method} ${operation.path}`;
    const kinds = Object.keys(bases).filter((key) => key.startsWith(`${name} `));
    if (kinds.length > 0) return kinds.map((key) => ({ operation, name: key, base: bases[key]! }));
    return [{ operation, name, base: bases[name] ?? {} }];
  });
}

/** Routes the API documents do not show, and why the walk leaves them to other tests. */
const UNDOCUMENTED: Record<string, string> = {
  'GET /openapi.json': 'the document itself',
  'GET /export/openapi.json': 'the document itself',
  'GET /site/health': 'no input',
  'GET /site/ready': 'no input',
  'GET /site/version': 'no input',
};

describe('the credentialed callers walk every operation with values at the edges', () => {
  it("walks every route of the app's route table, or says why not", async () => {
    const main = await t.app.inject({ method: 'GET', url: '/openapi.json', headers: callers.operator.headers() });
    const exported = await t.app.inject({ method: 'GET', url: '/export/openapi.json', headers: callers.exporter.headers() });
    const documented = new Set(
      [main.json(), exported.json()].flatMap((document) => operationsOf(document).map((o) => `${o.method} ${o.path}`)),
    );
    const routes = routeTable(t.app);
    expect(routes.length).toBeGreaterThan(150);
    const unwalked = routes.filter((route) => !documented.has(route) && !(route in UNDOCUMENTED) && !route.startsWith('GET /docs'));
    expect(unwalked).toEqual([]);
    // Every route the documents show is one the app serves, and every reason above names a route it serves.
    expect([...documented].filter((route) => !routes.includes(route))).toEqual([]);
    expect(Object.keys(UNDOCUMENTED).filter((route) => !routes.includes(route))).toEqual([]);
  });

  it('get no 5xx, a 4xx in the documented shape, and change nothing when refused', async () => {
    const started = Date.now();
    const main = await t.app.inject({ method: 'GET', url: '/openapi.json', headers: callers.operator.headers() });
    const exported = await t.app.inject({ method: 'GET', url: '/export/openapi.json', headers: callers.exporter.headers() });
    const documents = [main.json(), exported.json()] as Array<Schema & { paths: Record<string, Record<string, unknown>> }>;
    const tracker = await rowTracker(t.database.db, t.config.databaseUrl);
    const limit = process.env.WALK_CASES === 'all' ? Infinity : Number(process.env.WALK_CASES ?? 6);
    const random = seeded(20261130);
    const outcomes: Outcome[] = [];
    let requests = 0;
    for (const document of documents) {
      for (const { operation, name, base } of walkedOperations(document)) {
        const documented = new Set(operation.responses);
        const all = edgeCases(operation, document, base, () => stranger.own);
        for (const caller of callersOf(operation)) {
          // The valid request (and another's ids) always, then a sample of the others.
          const fixed = all.filter((edge) => ALWAYS.has(edge.label));
          const others = all.filter((edge) => !ALWAYS.has(edge.label));
          const cases = all.length <= limit ? all : [...fixed, ...others.sort(() => random() - 0.5).slice(0, limit - fixed.length)];
          for (const edge of cases) {
            // The log is read after every request and after what the walk itself writes (a base's
            // before, a refresh), so what it holds next is the next request's alone. Reading it before
            // each request as well was a round trip more per request on PostgreSQL, for nothing.
            if (base.before) {
              await base.before(caller);
              await tracker.changes();
            }
            const bad = edge.request(caller.own);
            requests += 1;
            const response = await t.app.inject({
              method: bad.method as 'GET',
              url: bad.url,
              headers: { ...bad.headers, ...caller.headers() },
              payload: bad.payload,
              remoteAddress: `10.${(requests >> 16) & 255}.${(requests >> 8) & 255}.${requests & 255}`,
            });
            const changed = await tracker.changes();
            const outcome: Outcome = {
              operation: name,
              caller: caller.name,
              label: edge.label,
              status: response.statusCode,
              problems: problemsOf(response, documented),
              body: response.body.slice(0, 300),
            };
            outcomes.push(outcome);
            if (edge.label === FOREIGN && response.statusCode < 400) outcome.problems.push("another customer's id answered");
            if (response.statusCode >= 400) {
              const judged = Object.keys(changed).filter((table) => !(table in ATTEMPT_TABLES) && !(table in BUFFERED_TABLES));
              if (judged.length > 0) outcome.problems.push(`refused but changed rows: ${judged.join(', ')}`);
            } else if (bad.method !== 'GET' && caller.refresh) {
              await caller.refresh();
              await tracker.changes();
            }
          }
        }
      }
    }
    await tracker.close?.();
    if (process.env.WALK_REPORT) writeFileSync(process.env.WALK_REPORT, outcomes.map((o) => JSON.stringify(o)).join('\n'));
    const findings = outcomes
      .filter((o) => o.problems.length > 0)
      .map((o) => `${o.operation} [${o.caller}] ${o.label} -> ${o.status} ${o.problems.join('; ')} ${o.body.slice(0, 200)}`);
    expect(findings, `${findings.length} findings in ${requests} requests (${Math.round((Date.now() - started) / 1000)} s)`).toEqual([]);
  }, 600_000);
});
