import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { sql, type CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/demo/seed.js';
import { systemClock } from '../../src/infra/clock.js';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { checksumSecret } from '../../src/modules/orders/checksum.js';
import { giftKeys } from '../../src/modules/orders/gift-key.js';
import { eventFeedCommand } from '../../src/modules/integrations/index.js';
import { createEngine, foldAllQueued } from '../../src/modules/search/index.js';
import { importLines } from '../basket/import-helpers.js';
import { companyMaster, invite } from '../companies/fixtures.js';
import { exportUser } from '../data-export/fixtures.js';
import { dateIn, card as giftCard } from '../gift-cards/helpers.js';
import { mailTo, register, registerVerified, tokenFromMail, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';
import { createProduct } from '../helpers/catalogue.js';
import { createCustomer } from '../helpers/customers.js';
import { startEveryPayServer, type EveryPayServer } from '../helpers/everypay-server.js';
import { uploadProductFiles } from '../helpers/product-files.js';
import { recordingDatabase, type StatementRecorder } from '../helpers/recording-database.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import { engine } from '../helpers/test-app.js';
import { explainable, explainStatement, tablesOf, type ExplainedStatement, type WholeRead } from '../helpers/whole-reads.js';
import { everypayEnv } from '../orders/everypay-helpers.js';
import { checkoutForm, createListeningApp, fill, orderLink, setUpShop, stockedBook, type Shop } from '../orders/helpers.js';
import { PLAN_LINES } from '../subscriptions/helpers.js';
import { badRequests, operationsOf, type Operation, type Schema } from './bad-input-cases.js';

// The bar: "Every list is paged and indexed; nothing loads a whole table per request." This sweep
// calls every documented GET operation of the API (the main document with the operators' routes,
// and the data export's) with a valid request by the caller it is for, on a shop with data: the
// demo catalogue; a customer with an address, two orders, downloads, a saved card, a subscription
// and a take, a comment and rating, a wishlist line, a back-in-stock request, a followed category
// and a basket; a guest with a basket; a business master with an invited employee and a wholesale
// master with a sub-company; an operator; the event feed's client; the export's partner. Each
// operation is called once as documented (bad-input-cases.ts builds the valid request from its
// schemas, with values that exist), then once more for each optional filter, sort and type it
// takes (one at a time) and for page 2 of a list. Then a new customer and a new guest make the
// writes a shopper makes most (basket, wishlist, back-in-stock and its confirmation, newsletter, comment and rating,
// session action, checkout), judged the same way.
//
// Every SQL statement a request runs goes through a handle that records it with its parameters
// (recording-database.ts, given to the app by createTestApp's wrapDatabase), and is explained on the
// engine the suite runs on (whole-reads.ts; on PostgreSQL with sequential scans, hash joins and
// merge joins off, so that only a missing index scans and every join probes an index per row, as
// on large tables; its statistics are left unset, so every run plans alike). No statement may read
// the whole of a table that grows with the business:
// - a scan of one (SQLite `SCAN t` or an automatic index built from it, PostgreSQL `Seq Scan`) fails;
// - so does a walk over a whole index of one (SQLite `SCAN t USING [COVERING] INDEX i`, PostgreSQL
//   an Index [Only] Scan without an Index Cond): it reads every entry unless something stops it.
//   A walk is let through only where ALLOWED names the statement and what stops it (a LIMIT that
//   the walk's own order answers, so it ends with the page; an EXISTS; a partial index that holds a
//   queue);
// - a whole read a route needs by design (a total the paging headers give, counted once per cache
//   period) is listed in ALLOWED too, with the reason;
// - REFERENCE_TABLES, the shop's set-up rather than its business, may be read whole.
// Every other table is one that grows. An operation the documents gain is called as it comes; the
// sweep fails when a valid request is refused (it would not reach its reads: give its parameters
// values that exist), on an optional parameter it has no value for, on an ALLOWED entry no statement
// needs any more (the list stays the list of what is read whole), and on an index added for its
// findings that no plan reads any more (SWEPT_INDEXES).
//
// What EXPLAIN does not show is not checked here: a trigger's statements (growing-tables-plans.test.ts
// explains the bought-product triggers' own), and the foreign-key checks of a delete.
//
// PLAN_SWEEP_REPORT=<file> writes every request's statements with their plans there.

const GENEROUS = '100000000/1m';

/** Tables read whole without harm: they hold the shop's set-up, not its business, and stay small. */
const REFERENCE_TABLES: Record<string, string> = {
  web_store: 'the stores (two or three)',
  country: 'the countries a store ships to (a few hundred at most)',
  country_name: 'their names in three languages',
  shop: 'the brick-and-mortar shops (tens)',
  shop_name: "the shops' names",
  shop_opening_hours: "the shops' weekly hours (7 a shop)",
  store_contact: "the stores' office contacts (one a store)",
  delivery_method: 'the delivery methods (a handful)',
  delivery_method_name: 'their names',
  delivery_method_price: 'their prices per store',
  delivery_method_shop: 'the shops each pick-up method serves',
  delivery_country_fee: 'the fees per country',
  app_secret: "the app's keys (a few rows)",
  subscription_plan: 'the subscription plans (a handful)',
  // Read whole by the catalogue's kept binding names, reloaded once a minute (reference-cache.ts): a
  // sweep slower than that (a loaded machine) meets the reload in whatever request comes next.
  binding_name: 'the names of the bindings (hardcover, paperback, ...: tens) in three languages',
  catalogue_reference_version: "one row a kind of reference data (the category tree's version, the bindings', ...)",
  search_state: "the search engine's state (one row)",
  kysely_migration: 'the migrations run (one row each)',
};

interface Allowed {
  table: string;
  /** The statements it covers. */
  statement: RegExp;
  kinds: Array<WholeRead['kind']>;
  /** Only on this engine (its plan differs). */
  engine?: 'sqlite' | 'postgres';
  /**
   * `page`: a walk in the order the statement answers, which its LIMIT stops at the page's end (checked: the plan sorts
   * nothing after it); `bounded`: something else stops the read early (a LIMIT of its own, an EXISTS, a partial
   * index); `needed`: the route reads it whole by design.
   */
  why: 'page' | 'bounded' | 'needed';
  reason: string;
}

/** A bound parameter on either engine. */
const P = String.raw`(?:\?|\$\d+)`;
/** Escapes text for a RegExp; `?` stands for a bound parameter of either engine. */
const pattern = (text: string) => text.replace(/[.*+()[\]{}|^$\\]/g, '\\$&').replaceAll('?', P);
const statementOf = (prefix: string, rest = '') => new RegExp(`^${pattern(prefix)}${rest}`);

/** Products a caller may see in the store (visibility.ts), as the product lists write it. */
const VISIBLE =
  '(p.is_active = ? and "p"."hidden_AUDIENCE" = ? and exists (select 1 from product_store ps where ps.product_id = p.id and ps.store_code = ?))';
const visible = (statement: string) => pattern(statement).replace('AUDIENCE', '(?:web|business)');

/** Whole reads of growing tables that are let through, each with the reason. */
const ALLOWED: Allowed[] = [
  {
    table: 'search_pending',
    statement: /from search_pending where kind <> 'visibility' limit/,
    kinds: ['scan', 'walk'],
    why: 'bounded',
    reason:
      "the search index's queue of product changes not yet folded, empty while the worker keeps up: counted up to the readiness " +
      'threshold (its LIMIT) and asked whether it holds a row (EXISTS), which stop at the threshold and at the first row',
  },
  {
    table: 'integration_event',
    statement: /from integration_event where position is null order by id limit/,
    kinds: ['walk'],
    engine: 'postgres',
    why: 'bounded',
    reason:
      'integration_event_unpositioned_idx is partial: only the events the feed has not numbered yet (a queue each feed read empties), ' +
      'at most its LIMIT of them',
  },
  {
    table: 'product',
    statement: new RegExp(`^${visible(`select "p"."id" from "product" as "p" where ${VISIBLE} order by `)}[^]+ limit ${P} offset ${P}$`),
    kinds: ['walk'],
    engine: 'sqlite',
    why: 'page',
    reason:
      "a page of the store's whole list in one of its sorts, walked in an index of that order (product_newest_idx, " +
      'product_series_order_idx, product_price_idx, product_wholesale_price_idx, product_name_idx, product_sales_idx, ' +
      'product_discount_idx) without a sort: the walk stops at the page (its offset and limit in visible products), and nearly ' +
      'every product is visible',
  },
  {
    table: 'product',
    statement: new RegExp(
      `^${visible(`select "p"."id", `)}[^]+ as "key" from "product" as "p" where ${visible(VISIBLE)}(?: and "p"."type" not in \\(${P}, ${P}\\))? order by [^]+ limit ${P} offset ${P}$`,
    ),
    kinds: ['walk'],
    engine: 'sqlite',
    why: 'page',
    reason:
      "the regular-price stream of a list sorted by the caller's price (price-streams.ts; a wholesale caller's without the gift " +
      'cards), walked in product_price_idx or product_wholesale_price_idx without a sort: price-order.ts reads it in batches ' +
      "from the page's end on, and stops once no product further on can come before the page's last",
  },
  {
    table: 'product',
    statement: new RegExp(
      `^${pattern('select "d"."level", count(*) as "n" from (select ')}[^]+${pattern(') as "d" group by "d"."level"')}$`,
    ),
    kinds: ['scan'],
    engine: 'sqlite',
    why: 'needed',
    reason:
      "the discount levels of a guest's or retail client's list sorted by discount or of its discounted products (discount-order.ts " +
      "discountLevels): how many of the list's products show each card discount, which is no column (it depends on the caller's " +
      'prices and the running campaigns); one grouped count that also gives the total, kept per filter, pricing inputs and running ' +
      'campaigns for the cache period, as the total of the whole list is',
  },
  ...(['person', 'publisher', 'series'] as const).map((table): Allowed => ({
    table,
    statement: statementOf(`select count(*) as "n" from "${table}" where exists (`, String.raw`[^]+\)\)\)$`),
    kinds: ['walk'],
    engine: 'sqlite',
    why: 'needed',
    reason:
      `the total of GET /${table === 'person' ? 'author' : table} without a name prefix: every ${table} with a product the caller ` +
      'sees, counted once per filter for the cache period (name-index.service.ts); a prefix reads its own names from the ' +
      'folded-name indexes',
  })),
  ...(['person', 'publisher', 'series'] as const).map((table): Allowed => ({
    table,
    // Authors are filed by surname: their order is the sort name's (person_sort_name_idx).
    statement: new RegExp(
      `^select .+ from "${table}" .+ ${pattern(`order by "${table}"."${table === 'person' ? 'sort_name' : 'name'}", "${table}"."id" limit ? offset ?`)}$`,
    ),
    kinds: ['walk'],
    engine: 'sqlite',
    why: 'page',
    reason: `a page of GET /${table === 'person' ? 'author' : table} in name order, walked in the name index: the walk stops at the page`,
  })),
  {
    table: 'search_product',
    // A text reads its matches through the text index (FTS5's MATCH, PostgreSQL's @@): those are not let through.
    statement: /^(?![^]*(?:\bmatch\b|@@))[^]*from "search_product" as "sp"/,
    kinds: ['scan', 'walk'],
    why: 'needed',
    reason:
      "a search without a text (GET /product/search, the dynamic filters' facets): the store's visible products, with the " +
      "caller's filters in any combination, which no index answers all of; each such read stops at the search's time budget " +
      '(SEARCH_TIME_BUDGET_MS: SQLite within_time_budget every 64 rows, PostgreSQL statement_timeout), the facets also at FACET_CAP ' +
      'rows, and the answers are cached (architecture.md: search)',
  },
  {
    table: 'search_product',
    statement: statementOf(
      'with r as materialized (select "sp"."id", "sp"."publisher_id", "sp"."series_id" from "search_product" as "sp" ',
    ),
    kinds: ['scan', 'walk'],
    why: 'bounded',
    reason:
      "the dynamic filters' name look-ups (search-author, -series, -publisher): the found products are read up to FACET_CAP rows " +
      '(their LIMIT) within the time budget, then matched with the names the text finds',
  },
  {
    table: 'product_store',
    statement: statementOf('select "product_id", "store_code" from "product_store" where "product_id" in ('),
    kinds: ['walk'],
    engine: 'postgres',
    why: 'bounded',
    reason:
      "the data export's stores of a page of 100 products: on the test's small table PostgreSQL walks product_store_store_idx " +
      'rather than probe product_store_pk 100 times; with more rows it probes the key (measured at 200,000 rows: Index Cond ' +
      'product_id = ANY), as SQLite always does',
  },
];

/**
 * The indexes added for what the sweep found (migration 2026_11_29_0860), and the engines whose plans of the swept requests
 * read through them. PostgreSQL without statistics reads a store's lists from its product_store rows and sorts them (the
 * test's tables are small), so the product lists' orders are SQLite's here.
 */
const SWEPT_INDEXES: Record<string, Array<'sqlite' | 'postgres'>> = {
  client_account_user_idx: ['sqlite', 'postgres'],
  wholesale_request_email_idx: ['sqlite', 'postgres'],
  product_newest_idx: ['sqlite'],
  product_type_newest_idx: ['sqlite', 'postgres'],
  product_series_order_idx: ['sqlite'],
  product_wholesale_price_idx: ['sqlite'],
  product_list_store_idx: ['sqlite', 'postgres'],
  quote_language_idx: ['sqlite', 'postgres'],
  series_publisher_idx: ['sqlite', 'postgres'],
  series_name_upper_idx: ['sqlite', 'postgres'],
  series_name_lower_idx: ['sqlite', 'postgres'],
};

/** Operations not called, with the reason. */
const NOT_SWEPT: Record<string, string> = {
  'GET /auth/external':
    "the social sign-in's landing: it needs the identity providers on fixed local addresses (test/helpers/social.ts), which this app has not",
};

/** Operations whose valid request here is answered otherwise than 2xx or 3xx, with the reason it still shows their reads. */
const NOT_FOUND_HERE: Record<string, string> = {
  'GET /sitemap/{store}/{file}': 'no sitemap has been written yet: the route reads the file store only, never the database',
};

/** Optional query parameters the variants leave out, with the reason. */
const OPTIONAL_LEFT_OUT: Record<string, string> = {
  'per-page': 'page=2 moves the window already; a larger page reads the same way',
  preview: "an operator's drafts: the same reads with the publishing condition left out",
  limit: 'a smaller or larger cap reads the same way',
  facetLimit: 'a smaller or larger cap reads the same way',
  productLimit: 'a smaller or larger cap reads the same way',
  personLimit: 'a smaller or larger cap reads the same way',
  publisherLimit: 'a smaller or larger cap reads the same way',
  seriesLimit: 'a smaller or larger cap reads the same way',
  categoryLimit: 'a smaller or larger cap reads the same way',
  after: 'a cursor of a page the sweep has not read (the first page reads from the start)',
  checksum: "the guest's order link: its own variant",
  language: "the texts' language: the caller's own reads the same way",
  VK_AUTO: "the bank's automatic return: the same reads",
  silent: "the bank's silent return: the same reads",
  payment_reference: "the gateway's return parameters: set where the operation needs them",
  order_reference: "the gateway's return parameters: set where the operation needs them",
};

interface Caller {
  name: string;
  headers: Record<string, string>;
}

type CallerName = 'customer' | 'guest' | 'business' | 'wholesale' | 'operator' | 'feed' | 'export';

interface Variant {
  /** What the variant adds to the valid request (for the report). */
  label: string;
  caller?: CallerName;
  query?: Record<string, string>;
  path?: Record<string, string>;
}

let t: AccountsTestApp;
let smtp: SmtpCatcher;
let everypay: EveryPayServer;
let recorder: StatementRecorder;
let fileDir: string;
let shop: Shop;
/** What the writes use: a stocked book, a sold-out one, a demo product with comments. */
let shopping: { book: number; soldOut: number; productId: number; productCode: string };
let tables: Set<string>;

/** The callers: the customer with data, a guest with a basket, company masters, the operator, the feed's client, the partner. */
let callers: Record<CallerName, Caller>;
/** Values of path and query parameters that lead to things that exist, per operation. */
let pathValues: Record<string, Record<string, string>>;
let queryValues: Record<string, Record<string, string>>;
/** Values for optional query parameters, by name (enums take each of their values). */
let optionalValues: Record<string, string>;
/** More requests of an operation than its valid one and its optional parameters: other callers, other things. */
let variants: Record<string, Variant[]>;

const ok = async (response: LightMyRequestResponse | Promise<LightMyRequestResponse>, status = 200) => {
  const answer = await response;
  expect(answer.statusCode, answer.body).toBe(status);
  return answer;
};

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  everypay = await startEveryPayServer();
  fileDir = mkdtempSync(join(tmpdir(), 'storefront-plan-sweep-'));
  const listening = await createListeningApp({
    env: {
      ...everypayEnv(everypay),
      SMTP_URL: smtp.url,
      FILE_STORE_DIR: fileDir,
      API_DOCS: 'operator',
      CHECKOUT_RATE_LIMIT_PER_IP: GENEROUS,
      LINK_GUESS_RATE_LIMIT_PER_IP: GENEROUS,
      BACK_IN_STOCK_RATE_LIMIT_PER_IP: GENEROUS,
      BACK_IN_STOCK_RATE_LIMIT_PER_EMAIL: GENEROUS,
      DATA_EXPORT_RATE_LIMIT: GENEROUS,
      BASKET_RATE_LIMIT_PER_IP: GENEROUS,
    },
    wrapDatabase: (database) => {
      recorder = recordingDatabase(database);
      return recorder.handle;
    },
  });
  everypay.setCallbackUrl(`${listening.origin}${listening.t.config.basePath}/payment/everypay/callback`);
  t = { ...listening.t, smtp } as unknown as AccountsTestApp;
  const db = t.database.db;
  tables = await tablesOf(db);
  // PostgreSQL plans by its statistics. Left to autovacuum they would be gathered at some moment of
  // the run, and the plans of this shop's small tables (a few thousand rows) would change with them:
  // without any, every run plans alike, from the tables' sizes, as PostgreSQL does a new table.
  if (engine === 'postgres') {
    for (const table of tables) await sql`alter table ${sql.table(table)} set (autovacuum_enabled = false)`.execute(db);
  }
  await seedDemo(t.database, { now: Date.now() });
  await foldAllQueued(t.database, createEngine(t.database));
  expect((await importLines(t, 'subscription-plans', PLAN_LINES)).statusCode).toBe(200);
  const plans = Object.fromEntries(
    (await db.selectFrom('subscription_plan').select(['id', 'code']).execute()).map((row) => [row.code, Number(row.id)]),
  );
  shop = await setUpShop(t);

  const operatorKey = await createApiKey(db, 'plan-sweep', Date.now());
  const lines: string[] = [];
  await eventFeedCommand({ db, clock: systemClock }, ['add', 'plan-sweep'], (line) => lines.push(line));
  const feedToken = lines.at(-1)!;
  const partner = await exportUser(db);

  // The customer and its things, made through the real flows.
  const ip = '198.51.100.21';
  const email = uniqueEmail('plan-sweep');
  const token = await registerVerified(t, email);
  const bearer = { authorization: `Bearer ${token}`, store: 'WEB', 'x-app-language': 'en' };
  const send = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({
      method,
      url,
      remoteAddress: ip,
      headers: { ...bearer, ...headers },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });

  const book = await stockedBook(t, shop, 50);
  const ebook = await createProduct(db, { name: 'Plaani e-raamat', type: 'EBOOK', binding: 'EPUB', deliveryTime: 'INSTANT_DOWNLOAD' });
  const voucher = await createProduct(db, { type: 'VIRTUAL_GIFT_CARD', name: 'Kinkekaart', price: 10, vatRate: 0 });
  const audiobook = await createProduct(db, {
    name: 'Plaani heliraamat',
    type: 'AUDIOBOOK',
    binding: 'MP3',
    deliveryTime: 'INSTANT_DOWNLOAD',
    price: 12,
  });
  const soldOut = await createProduct(db, { name: 'Otsas', availability: 'TEMPORARILY_OUT_OF_STOCK' });
  await uploadProductFiles(t, operatorKey, [
    [ebook, 'EPUB'],
    [audiobook, 'MP3'],
  ]);
  await ok(
    send('POST', '/client-account/address', {
      kind: 'SHIPPING',
      name: 'Mari Maasikas',
      phone: '+372 5123 4567',
      address: 'Pikk 1',
      city: 'Tartu',
      postcode: '51007',
      countryNavCode: 'EE',
      isDefault: true,
    }),
    201,
  );
  // An order of a book, an e-book and a virtual gift card, paid in full by a gift card, processed.
  await fill(t, { bearer: token, ip }, [
    [book, 1],
    [ebook, 1],
  ]);
  await ok(
    send('POST', '/basket/add-product', {
      productId: voucher,
      quantity: 1,
      giftCard: {
        amount: 15,
        recipientName: 'Kingisaaja',
        recipientEmail: 'kingisaaja@example.ee',
        message: 'Tere',
        deliveryDate: dateIn(3),
      },
    }),
  );
  const giftCardCode = await giftCard(t, 500);
  await ok(send('POST', '/basket/add-gift-card', { code: giftCardCode }));
  const paid = orderLink((await ok(send('POST', '/checkout', checkoutForm(shop)))).json().location);
  await ok(t.app.inject({ method: 'GET', url: paid.path }));
  await t.drainJobs();
  const paidCode = (await db.selectFrom('customer_order').select('code').where('id', '=', paid.orderId).executeTakeFirstOrThrow()).code!;
  // An order waiting for the test gateway: its payment page.
  await fill(t, { bearer: token, ip }, [[book, 1]]);
  const unpaid = orderLink((await ok(send('POST', '/checkout', checkoutForm(shop)))).json().location);
  const form = (await ok(t.app.inject({ method: 'GET', url: unpaid.path }))).json() as { url: string };
  const testPayment = new URL(form.url).pathname.split('/').at(-1)!;
  // A line left in the basket.
  await ok(send('POST', '/basket/add-product', { productId: book, quantity: 2 }));

  // A saved card (its return link), a subscription and a take.
  const started = (await ok(send('POST', '/subscription-credit-card'))).json() as { fields: Record<string, string> };
  const back = new URL(await everypay.shopper(started.fields.payment_reference!, 'pay'));
  const returned = await fetch(back, { redirect: 'manual' });
  expect(returned.status).toBe(303);
  const cardId = Number(new URL(returned.headers.get('location')!, 'http://frontend.invalid').searchParams.get('cardId'));
  const subscriptionId = (await ok(send('POST', '/subscription', { planId: plans.AUDIO1, cardId }), 201)).json().id as number;
  await ok(send('POST', `/subscription/${subscriptionId}/take`, { productId: audiobook }), 201);
  const downloads = (await ok(send('GET', '/download'))).json() as Array<{ id: string; productId: number }>;
  const downloadId = downloads.find((item) => item.productId === ebook)!.id;
  const link = new URL((await ok(send('GET', `/download/${downloadId}/link`))).json().url as string).pathname;
  // The paid order's e-book as if bought for someone else: the receiver's key, as their order mail carries it.
  await db
    .insertInto('order_gift_download')
    .values({ order_id: paid.orderId, receiver_email: 'saaja@example.ee', created_at: Date.now() })
    .execute();
  const giftKey = giftKeys(await checksumSecret(db, undefined, Date.now())).of({
    orderId: paid.orderId,
    expiresAt: Date.now() + 86_400_000,
  });

  // Demo things: a product with comments, its person, publisher, series, category, lists.
  const commented = await db
    .selectFrom('product_comment')
    .innerJoin('product', 'product.id', 'product_comment.product_id')
    .select(['product.id', 'product.code', 'product.name'])
    .orderBy('product.id')
    .executeTakeFirstOrThrow();
  const productId = Number(commented.id);
  await ok(send('POST', `/product/${productId}/comments`, { body: 'Hea raamat, soovitan', rating: 5 }), 201);
  await ok(send('POST', '/wishlist', { productId }), 201);
  await ok(send('POST', '/back-in-stock', { productId: soldOut }), 201);
  const category = await db
    .selectFrom('category')
    .select(['id', 'code'])
    .where('parent_id', 'is', null)
    .orderBy('id')
    .executeTakeFirstOrThrow();
  await ok(send('PUT', '/category-preference', { categories: [Number(category.id)] }));
  const firstOf = async (table: 'person' | 'publisher' | 'series' | 'campaign' | 'product_list') =>
    String((await db.selectFrom(table).select('id').orderBy('id').executeTakeFirstOrThrow()).id);
  const author = String(
    (await db.selectFrom('product_person').select('person_id').orderBy('product_id').executeTakeFirstOrThrow()).person_id,
  );
  const redirect = await db.selectFrom('redirect').select(['code', 'path']).orderBy('id').executeTakeFirstOrThrow();
  const blog = await db.selectFrom('blog_post').select(['slug', 'code']).orderBy('id').executeTakeFirstOrThrow();
  const news = await db.selectFrom('news').select(['slug', 'code']).orderBy('id').executeTakeFirstOrThrow();
  // The demo has no composite page: one with a block of each kind that reads.
  const composite = await importLines(t, 'composite-pages', [
    {
      code: 'PLAN-SWEEP',
      store: 'WEB',
      kind: 'COMPOSITE',
      slug: 'plaani-leht',
      translations: { et: { title: 'Plaan' } },
      blocks: [
        { type: 'BANNER', placement: 'HOME' },
        { type: 'PRODUCT_COMPONENT', component: 'discounted', limit: 8 },
        { type: 'PRODUCT_COMPONENT', component: 'newest', category: category.code, limit: 8 },
        { type: 'PRODUCT_LIST', products: [commented.code] },
        { type: 'CAMPAIGN_LIST', campaigns: ['WEB-BOOK-WEEK'] },
        { type: 'RICH_TEXT', translations: { et: { body: '<p>Tere</p>' } } },
      ],
    },
  ]);
  expect(composite.statusCode, composite.body).toBe(200);

  // A guest with a basket.
  const guestBasket = await fill(t, { ip: '198.51.100.22' }, [[book, 1]]);
  // A registration waiting for its link.
  const pending = uniqueEmail('plan-sweep-pending');
  expect((await register(t, pending)).statusCode).toBeLessThan(300);
  const verificationToken = tokenFromMail(await mailTo(t, pending), 'verificationToken');

  // Company masters: a business one with an employee invited, a wholesale one with a sub-company.
  const business = await companyMaster(t, 'BUSINESS');
  await invite(t, business.token, uniqueEmail('plan-sweep-employee'));
  const wholesale = await companyMaster(t, 'WHOLESALE');
  await ok(
    t.app.inject({
      method: 'POST',
      url: '/sub-company',
      headers: { authorization: `Bearer ${wholesale.token}`, store: 'WEB' },
      payload: { name: 'Haru', addresses: [{ street: 'Haru 3', city: 'Tartu', postcode: '51007', countryCode: 'EE' }] },
    }),
  );

  shopping = { book, soldOut, productId, productCode: commented.code };
  // The search index folds what the set-up changed, as the worker would: searches read their usual way.
  await foldAllQueued(t.database, createEngine(t.database));

  const store = { store: 'WEB', 'x-app-language': 'en' };
  callers = {
    customer: { name: 'customer', headers: bearer },
    guest: { name: 'guest', headers: { ...store, 'basket-token': guestBasket.token! } },
    business: { name: 'business master', headers: { ...store, authorization: `Bearer ${business.token}` } },
    wholesale: { name: 'wholesale master', headers: { ...store, authorization: `Bearer ${wholesale.token}` } },
    operator: { name: 'operator', headers: { authorization: `Bearer ${operatorKey}` } },
    feed: { name: 'feed client', headers: { authorization: `Bearer ${feedToken}` } },
    export: { name: 'partner', headers: { authorization: partner.authorization } },
  };
  const productPaths = { id: String(productId), code: commented.code };
  pathValues = {
    '/product/{id}': productPaths,
    '/product/code/{code}': productPaths,
    '/product/{id}/related': productPaths,
    '/product/{id}/assets': productPaths,
    '/product/{id}/prices': productPaths,
    '/product/{id}/availability': productPaths,
    '/product/{id}/recommendations': productPaths,
    '/product/{id}/quotes': productPaths,
    '/product/{id}/comments': productPaths,
    '/product/{id}/rating': productPaths,
    '/category/{id}': { id: String(category.id) },
    '/category/{id}/products': { id: String(category.id) },
    '/category-page/{categoryId}': { categoryId: String(category.id) },
    '/person/{id}': { id: author },
    '/person/{id}/products': { id: author },
    '/publisher/{id}': { id: await firstOf('publisher') },
    '/publisher/{id}/products': { id: await firstOf('publisher') },
    '/series/{id}': { id: await firstOf('series') },
    '/series/{id}/products': { id: await firstOf('series') },
    '/campaign/{id}': { id: await firstOf('campaign') },
    '/campaign/{id}/products': { id: await firstOf('campaign') },
    '/campaign/code/{code}': { code: 'WEB-BOOK-WEEK' },
    '/product-list/{id}': { id: await firstOf('product_list') },
    '/product-list/{id}/products': { id: await firstOf('product_list') },
    '/product-list/code/{code}': { code: 'WEB-BOOK-CLUB' },
    '/product-list/code/{code}/products': { code: 'WEB-BOOK-CLUB' },
    '/shop/{code}': { code: 'HPS' },
    '/shop/{code}/schedule': { code: 'HPS' },
    '/content-page/{slug}': { slug: 'meist' },
    '/composite-page/{slug}': { slug: 'plaani-leht' },
    '/discount-page/{slug}': { slug: 'raamatunadal' },
    '/blog/{slug}': { slug: blog.slug },
    '/news/{slug}': { slug: news.slug },
    '/qr-code/{code}': { code: `product-${commented.code}` },
    '/admin/content/redirects/{code}': { code: redirect.code },
    '/payment/test/pay/{reference}': { reference: testPayment },
    '/payment/{gateway}/callback': { gateway: 'everypay' },
    '/order/{code}': { code: paidCode },
    '/order/{code}/download': { code: paidCode },
    '/order/{code}/download/{id}/link': { code: paidCode, id: downloadId },
    '/gift-download/{key}': { key: giftKey },
    '/gift-download/{key}/{id}/link': { key: giftKey, id: downloadId },
    '/subscription/{id}/take': { id: String(subscriptionId) },
    '/download/{id}/link': { id: downloadId },
    '/direct-download/{token}': { token: link.split('/').at(-1)! },
    '/sitemap/{store}/{file}': { store: 'WEB', file: 'sitemap.xml' },
  };
  const orderQuery = { orderId: String(paid.orderId), checksum: paid.checksum };
  queryValues = {
    '/auth/verify-email-meta': { verificationToken },
    '/autocomplete': { term: 'raa' },
    '/product-dynamic-filter/search-author': { term: 'a' },
    '/product-dynamic-filter/search-series': { term: 'a' },
    '/product-dynamic-filter/search-publisher': { term: 'a' },
    '/recommendation': { productId: String(productId) },
    '/virtual-gift-card/balance': { code: giftCardCode },
    '/admin/ctr': { from: new Date(Date.now() - 30 * 86_400_000).toISOString(), to: new Date().toISOString() },
    '/external-url': { path: redirect.path },
    '/bank/create-form': orderQuery,
    '/bank/return-internal': orderQuery,
    '/subscription-credit-card/return': Object.fromEntries(back.searchParams),
    '/payment/{gateway}/callback': Object.fromEntries(back.searchParams),
  };
  const binding = await db.selectFrom('product').select('binding_code').where('binding_code', 'is not', null).executeTakeFirstOrThrow();
  const blogCategory = await db.selectFrom('blog_category').select('slug').orderBy('id').executeTakeFirst();
  const blogTag = await db.selectFrom('blog_post_tag').select('tag').orderBy('blog_post_id').executeTakeFirst();
  const word = commented.name.split(/\s+/).find((part) => part.length >= 4) ?? commented.name;
  optionalValues = {
    categoryId: String(category.id),
    personId: author,
    publisherId: await firstOf('publisher'),
    seriesId: await firstOf('series'),
    productListId: await firstOf('product_list'),
    campaignId: await firstOf('campaign'),
    productId: String(productId),
    q: word,
    letter: word.slice(0, 1),
    binding: binding.binding_code!,
    priceMin: '5',
    priceMax: '50',
    minDiscount: '10',
    shop: 'HPS',
    preorder: 'true',
    new: 'true',
    countryCode: 'EE',
    store: 'WEB',
    category: blogCategory?.slug ?? 'missing',
    tag: blogTag?.tag ?? 'missing',
    updatedSince: new Date(Date.now() - 86_400_000).toISOString(),
    createdFrom: new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 19).replace('T', ' '),
    createdTo: new Date().toISOString().slice(0, 19).replace('T', ' '),
    updatedFrom: new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 19).replace('T', ' '),
    updatedTo: new Date().toISOString().slice(0, 19).replace('T', ' '),
    page: '2',
  };
  variants = {
    '/order/{code}': [{ label: "the guest's link", caller: 'guest', query: { checksum: paid.checksum } }],
    '/basket': [{ label: 'a guest', caller: 'guest' }],
    '/basket/totals': [{ label: 'a guest', caller: 'guest' }],
    '/basket/delivery-methods': [{ label: 'a guest', caller: 'guest' }],
    '/checkout/meta': [{ label: 'a guest', caller: 'guest' }],
    '/product/{id}/comments': [{ label: 'a guest', caller: 'guest' }],
    '/product/{id}/rating': [{ label: 'a guest', caller: 'guest' }],
    '/product': [
      { label: 'a guest', caller: 'guest' },
      { label: 'a business client', caller: 'business' },
      { label: 'a wholesale client, by price', caller: 'wholesale', query: { sort: 'price' } },
    ],
    '/product/search': [
      { label: 'a text, sorted by price, in a category', query: { q: word, sort: 'price', categoryId: String(category.id) } },
      { label: 'a guest with a text', caller: 'guest', query: { q: word } },
    ],
    '/product-dynamic-filter/filters': [{ label: 'a text', query: { q: word } }],
    '/qr-code/{code}': [
      { label: 'a shop', path: { code: 'shop-HPS' } },
      { label: 'a blog post', path: { code: `blog-${blog.code}` } },
      { label: 'a news item', path: { code: `news-${news.code}` } },
      { label: 'a redirect', path: { code: `redirect-${redirect.code}` } },
    ],
  };
}, 180_000);
afterAll(async () => {
  await t?.close();
  await everypay?.close();
  await smtp?.close();
  if (fileDir) rmSync(fileDir, { recursive: true, force: true });
});

/** The caller an operation is for. */
function callerOf(path: string): CallerName {
  if (path.startsWith('/export/')) return 'export';
  if (path.startsWith('/admin/')) return 'operator';
  if (path === '/integration/events') return 'feed';
  if (path.startsWith('/company-user')) return 'business';
  if (path.startsWith('/sub-company')) return 'wholesale';
  return 'customer';
}

/** The values an enum parameter takes (its own, or its branches' constants). */
function enumValues(schema: Schema | undefined): string[] | undefined {
  if (!schema) return undefined;
  if (schema.type === 'array') return enumValues(schema.items as Schema);
  if (Array.isArray(schema.enum)) return schema.enum.map(String);
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  const constants = branches?.filter((branch) => 'const' in branch).map((branch) => String(branch.const));
  return constants && constants.length > 0 ? constants : undefined;
}

/** One request per optional query parameter (each value of an enum), the others as in the valid request. */
function optionalVariants(operation: Operation): { variants: Variant[]; unknown: string[] } {
  const variants: Variant[] = [];
  const unknown: string[] = [];
  for (const parameter of operation.parameters) {
    if (parameter.in !== 'query' || parameter.required || parameter.name in OPTIONAL_LEFT_OUT) continue;
    if (operation.path in queryValues && parameter.name in queryValues[operation.path]!) continue;
    const values = enumValues(parameter.schema) ?? (parameter.name in optionalValues ? [optionalValues[parameter.name]!] : undefined);
    if (values === undefined) unknown.push(`${operation.method} ${operation.path} ?${parameter.name}`);
    for (const value of values ?? []) variants.push({ label: `${parameter.name}=${value}`, query: { [parameter.name]: value } });
  }
  return { variants, unknown };
}

interface Swept {
  operation: string;
  label: string;
  caller: string;
  url: string;
  status: number;
  statements: CompiledQuery[];
}

async function sweep(operations: Array<{ operation: Operation; document: Schema }>): Promise<{ swept: Swept[]; unknown: string[] }> {
  const swept: Swept[] = [];
  const unknown: string[] = [];
  for (const { operation, document } of operations) {
    const name = `${operation.method} ${operation.path}`;
    const optional = optionalVariants(operation);
    unknown.push(...optional.unknown);
    for (const variant of [{ label: 'the valid request' }, ...optional.variants, ...(variants[operation.path] ?? [])] as Variant[]) {
      const caller = callers[variant.caller ?? callerOf(operation.path)];
      const [valid] = badRequests(operation, document, {
        depth: 'minimal',
        pathValues: { ...pathValues[operation.path], ...variant.path },
      });
      const url = new URL(valid!.url, 'http://sweep.invalid');
      for (const [key, value] of Object.entries({ ...queryValues[operation.path], ...variant.query })) url.searchParams.set(key, value);
      const target = `${url.pathname}${url.search}`;
      const method = operation.method as 'GET';
      swept.push(
        await recorded(name, variant.label, caller, {
          method,
          url: target,
          headers: valid!.headers as Record<string, string>,
          payload: valid!.payload,
        }),
      );
    }
  }
  return { swept, unknown };
}

/** A whole read of a growing table that no entry allows. */
interface Finding {
  operation: string;
  read: WholeRead;
  statement: CompiledQuery;
  plan: string;
}

/** What the requests' statements read, over both tests: the allowed entries used, every plan, the report's lines. */
const used = new Set<Allowed>();
const explained = new Map<string, ExplainedStatement>();
const report: string[] = [];

/** Explains every statement of the requests: the whole reads no entry allows, and the names no plan step could be tied to. */
async function judge(swept: Swept[]): Promise<{ findings: string[]; unresolved: string[] }> {
  const findings: Finding[] = [];
  const unresolved: string[] = [];
  for (const { operation, label, statements, caller, status, url } of swept) {
    report.push(`### ${operation} (${label}) as ${caller} -> ${status} ${url}`);
    for (const statement of statements.filter(explainable)) {
      const key = `${statement.sql}\u0000${JSON.stringify(statement.parameters)}`;
      let result = explained.get(key);
      if (!result) {
        result = await explainStatement(t.database.db, statement, tables);
        explained.set(key, result);
      }
      report.push(statement.sql, JSON.stringify(statement.parameters), result.plan, '');
      unresolved.push(...result.unresolved.map((name) => `${operation}: ${name} in ${statement.sql}`));
      for (const read of result.reads) {
        if (read.table in REFERENCE_TABLES) continue;
        const allowed = ALLOWED.find(
          (entry) =>
            entry.table === read.table &&
            entry.kinds.includes(read.kind) &&
            (entry.engine === undefined || entry.engine === engine) &&
            entry.statement.test(statement.sql),
        );
        // A walk is bounded by its LIMIT only when the rows come out in the walk's order: sorted afterwards, it read them all.
        const sorted = /USE TEMP B-TREE FOR (RIGHT PART OF )?ORDER BY|(^|->)\s*(Incremental )?Sort\s+\(cost/m.test(result.plan);
        if (allowed && !(allowed.why === 'page' && sorted)) used.add(allowed);
        else findings.push({ operation, read, statement, plan: result.plan });
      }
    }
  }
  const summary = [...new Map(findings.map((f) => [`${f.operation} ${f.read.table} ${f.read.kind} ${f.statement.sql}`, f])).values()].map(
    (f) =>
      `${f.operation}: ${f.read.kind} of ${f.read.table} (${f.read.step})\n  ${f.statement.sql}\n  ${JSON.stringify(f.statement.parameters)}\n  ${f.plan.replaceAll('\n', '\n  ')}`,
  );
  return { findings: summary, unresolved };
}

/** Sends one request with the statements it runs recorded. */
async function recorded(
  operation: string,
  label: string,
  caller: Caller,
  request: { method: 'GET' | 'POST' | 'PUT' | 'DELETE'; url: string; headers?: Record<string, string>; payload?: unknown },
): Promise<Swept & { response: LightMyRequestResponse }> {
  recorder.start();
  const response = await t.app.inject({
    method: request.method,
    url: request.url,
    headers: { ...request.headers, ...caller.headers },
    ...(request.payload === undefined ? {} : { payload: request.payload as string }),
    remoteAddress: '198.51.100.30',
  });
  // What the request left to write after its answer (a session action's buffer) is its too.
  await new Promise((resolve) => setTimeout(resolve, 0));
  return { operation, label, caller: caller.name, url: request.url, status: response.statusCode, statements: recorder.stop(), response };
}

afterAll(() => {
  if (process.env.PLAN_SWEEP_REPORT) writeFileSync(process.env.PLAN_SWEEP_REPORT, report.join('\n'));
});

describe('every documented GET operation, called with valid requests by its caller', () => {
  it('reads no whole table that grows with the business', async () => {
    const main = await ok(t.app.inject({ method: 'GET', url: '/openapi.json', headers: callers.operator.headers }));
    const exported = await ok(t.app.inject({ method: 'GET', url: '/export/openapi.json', headers: callers.export.headers }));
    const operations = [main.json(), exported.json()].flatMap((document: Schema & { paths: Record<string, Record<string, unknown>> }) =>
      operationsOf(document).map((operation) => ({ operation, document })),
    );
    const gets = operations.filter(({ operation }) => operation.method === 'GET' && !(`GET ${operation.path}` in NOT_SWEPT));
    const { swept, unknown } = await sweep(gets);
    const refused = swept
      .filter((s) => s.status >= 400 && !(s.operation in NOT_FOUND_HERE))
      .map((s) => `${s.operation} (${s.label}) as ${s.caller}: ${s.status} ${s.url}`);
    const { findings, unresolved } = await judge(swept);
    expect({ refused, unresolved, unknown, findings }, `${findings.length} whole reads of growing tables`).toEqual({
      refused: [],
      unresolved: [],
      unknown: [],
      findings: [],
    });
    expect(gets.length).toBeGreaterThan(100);
    expect(swept.length).toBeGreaterThan(250);
  }, 600_000);
});

describe("a shopper's most used writes", () => {
  it('read no whole table that grows with the business either', async () => {
    const db = t.database.db;
    const customer = await createCustomer(db);
    const caller: Caller = {
      name: 'a new customer',
      headers: { authorization: `Bearer ${customer.token}`, store: 'WEB', 'x-app-language': 'en' },
    };
    const guest: Caller = { name: 'a new guest', headers: { store: 'WEB', 'x-app-language': 'en' } };
    const { book, soldOut, productId, productCode } = shopping;
    const swept: Array<Swept & { response: LightMyRequestResponse }> = [];
    const send = async (
      who: Caller,
      method: 'POST' | 'PUT' | 'DELETE',
      url: string,
      payload?: unknown,
      headers?: Record<string, string>,
    ) => {
      const done = await recorded(`${method} ${url.replace(/\/\d+(?=\/|$)/g, '/{id}').replace(/\?.*$/, '')}`, 'the valid request', who, {
        method,
        url,
        payload,
        headers,
      });
      swept.push(done);
      return done.response;
    };
    // A guest's basket, and a second one the customer takes over at login.
    const guestBasket = (await send(guest, 'POST', '/basket/add-product', { productId: book, quantity: 1 })).headers[
      'basket-token'
    ] as string;
    const merged = (await send(guest, 'POST', '/basket/add-product', { productId: book, quantity: 1 })).headers['basket-token'] as string;
    await send(caller, 'POST', '/basket/merge', undefined, { 'basket-token': merged });
    await send(caller, 'POST', '/basket/add-product', { productId: book, quantity: 1 });
    await send(caller, 'PUT', '/basket/change-quantity', { productId: book, quantity: 3 });
    await send(caller, 'POST', '/basket/add-discount', { code: 'TERE10' });
    await send(caller, 'PUT', '/basket/delivery', { deliveryMethodId: shop.methods.COURIER });
    await send(caller, 'POST', '/wishlist', { productId });
    await send(caller, 'POST', '/back-in-stock', { productId: soldOut });
    const bisGuest = uniqueEmail('plan-sweep-guest');
    await send(guest, 'POST', '/back-in-stock', { productId: soldOut, email: bisGuest });
    const bisToken = /[?&]backInStockToken=([A-Za-z0-9_-]+)/.exec((await mailTo(t, bisGuest, /./)).text ?? '')?.[1];
    await send(guest, 'POST', '/back-in-stock/confirm', { token: bisToken });
    await send(guest, 'POST', '/newsletter/subscribe', { email: uniqueEmail('plan-sweep-news'), language: 'et' });
    await send(caller, 'POST', `/product/${productId}/comments`, { body: 'Väga hea lugemine', rating: 4 });
    await send(caller, 'PUT', `/product/${productId}/rating`, { rating: 5 });
    await send(caller, 'POST', '/event/session-action', { session: 'plan-sweep-1', product: productCode, actionType: 'VIEW' });
    await send(caller, 'POST', '/checkout', checkoutForm(shop));
    await send(guest, 'POST', '/checkout', checkoutForm(shop), { 'basket-token': guestBasket });

    const refused = swept
      .filter((s) => s.status >= 300)
      .map((s) => `${s.operation} as ${s.caller}: ${s.status} ${s.response.body.slice(0, 200)}`);
    const { findings, unresolved } = await judge(swept);
    expect({ refused, unresolved, findings }, `${findings.length} whole reads of growing tables`).toEqual({
      refused: [],
      unresolved: [],
      findings: [],
    });
  }, 120_000);
});

describe('what the sweep relies on', () => {
  it('lets through only whole reads some statement still makes, and its indexes are read', () => {
    const stale = ALLOWED.filter((entry) => (entry.engine === undefined || entry.engine === engine) && !used.has(entry)).map(
      (entry) => `${entry.kinds.join('/')} of ${entry.table} ${entry.statement}`,
    );
    const plans = [...explained.values()].map((result) => result.plan).join('\n');
    const unusedIndexes = Object.entries(SWEPT_INDEXES)
      .filter(([index, engines]) => engines.includes(engine) && !new RegExp(`\\b${index}\\b`).test(plans))
      .map(([index]) => index);
    expect(explained.size).toBeGreaterThan(500);
    expect({ stale, unusedIndexes }).toEqual({ stale: [], unusedIndexes: [] });
  });
});
