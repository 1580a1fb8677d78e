// Creates a Vendure SQLite database with the same catalogue as one of the project's bench datasets
// (bench/catalogue-dataset.ts), through Vendure's own import path: InitialData + the CSV Importer,
// then the collections and a full search reindex, all run in this process's job queue.
//
//   node populate.mjs --from ../../.tmp/catalogue-20000.db [--out data/vendure-20000.sqlite]
//
// What is copied, per product a guest of the WEB store sees (active, not hidden, sold in WEB):
// name, description (which names the title and the authors, as the project's search documents do),
// code as SKU, the shop price (VAT included; Vendure's tax rate is set to 0 % so priceWithTax is the
// same number), web stock, and one facet value per WEB category it is in *and each ancestor of it*.
// Each active WEB category becomes a collection (slug c-<category id>) filtering on its own facet
// value, so a collection holds its whole subtree as the project's category lists do. Product slugs
// are p-<project product id>, so the bench can ask both servers for the same products.
import { createServer } from 'node:net';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { ConfigService, JobQueueService, RequestContextService, SearchService, bootstrap } from '@vendure/core';
import { populate } from '@vendure/core/cli/index.js';
import { peerConfig } from './config.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const CSV_COLUMNS = [
  'name',
  'slug',
  'description',
  'assets',
  'facets',
  'optionGroups',
  'optionValues',
  'sku',
  'price',
  'taxCategory',
  'stockOnHand',
  'trackInventory',
  'variantAssets',
  'variantFacets',
];

const { values } = parseArgs({ options: { from: { type: 'string' }, out: { type: 'string' } }, strict: true });
if (!values.from) {
  process.stderr.write('usage: node populate.mjs --from <project dataset .db> [--out <vendure .sqlite>]\n');
  process.exit(2);
}
const started = performance.now();
const seconds = () => ((performance.now() - started) / 1000).toFixed(1);
const log = (line) => process.stdout.write(`[${seconds()} s] ${line}\n`);

const source = readSource(resolve(values.from));
// catalogue-20000.db -> data/vendure-20000.sqlite, the name bench/peer-vendure.ts looks for (the dataset
// itself holds a product more than asked for, so its count would not match).
const sizeInName = /catalogue-(\d+)\.db$/.exec(values.from)?.[1];
const out = resolve(values.out ?? join(HERE, 'data', `vendure-${sizeInName ?? source.projectProducts}.sqlite`));
log(`${source.products.length} products visible in WEB (of ${source.projectProducts}), ${source.collections.length} collections -> ${out}`);
mkdirSync(dirname(out), { recursive: true });
for (const suffix of ['', '-wal', '-shm', '.csv']) rmSync(`${out}${suffix}`, { force: true });
const csvFile = `${out}.csv`;
writeFileSync(csvFile, toCsv(source.products));

// A server, not a worker: the in-memory job queue runs only in a server process (a worker stops itself).
const app = await bootstrap(
  peerConfig({ database: out, port: Number(process.env.PORT) || (await freePort()), synchronize: true, bulkLoad: true, logLevel: 'info' }),
);
await app.get(JobQueueService).start();
log('schema created, job queue running; importing');
await populate(async () => app, initialData(source.collections), csvFile);
// With bufferUpdates the search plugin holds the collections' filter jobs too: run them now. populate()
// queued a reindex before them; when its rows came out without their collections, reindex once more.
log("import and collections done; applying the collection filters (and populate's own reindex)");
await app.get(JobQueueService).flush('search-plugin-apply-collection-filters');
await waitForJobs(app);
const missing = collectionsMissingFromIndex(out);
if (missing > 0) {
  log(`${missing} collection memberships missing from the search index: reindexing`);
  const ctx = await app.get(RequestContextService).create({ apiType: 'admin' });
  await app.get(SearchService).reindex(ctx);
  await waitForJobs(app);
}
const check = new Database(out, { readonly: true });
const count = (table) => check.prepare(`select count(*) as n from ${table}`).get().n;
log(
  `done: ${count('product')} products, ${count('collection')} collections (with the root), ${count('search_index_item')} search index rows, ` +
    `${count('collection_product_variants_product_variant')} collection memberships`,
);
check.close();
rmSync(csvFile, { force: true });
await app.close();
process.exit(0);

/** A free loopback port for the import's server (nothing is asked of it over HTTP), so two imports can run at once. */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** Memberships (variant, collection) the search index rows do not list: 0 when the index is complete. */
function collectionsMissingFromIndex(file) {
  const db = new Database(file, { readonly: true });
  try {
    const members = db.prepare('select count(*) as n from collection_product_variants_product_variant').get().n;
    const listed = db
      .prepare(
        `select coalesce(sum(length(collectionIds) - length(replace(collectionIds, ',', '')) + 1), 0) as n
         from search_index_item where collectionIds <> ''`,
      )
      .get().n;
    return members - listed;
  } finally {
    db.close();
  }
}

/** The project's dataset as Vendure rows. */
function readSource(file) {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const projectProducts = db.prepare('select count(*) as n from product').get().n;
    const categories = db
      .prepare(
        `
      select c.id, c.code, c.parent_id as parentId, c.level, n.name
      from category c join category_name n on n.category_id = c.id and n.language = 'en'
      where c.store_code = 'WEB' and c.is_active = 1 order by c.level, c.position, c.id`,
      )
      .all();
    // Each category a product is in, with all of its ancestors: the WEB tree's closure table.
    const memberships = db
      .prepare(
        `
      select distinct pc.product_id as productId, a.code
      from product_category pc
      join category_subtree s on s.category_id = pc.category_id and s.store_code = 'WEB'
      join category a on a.id = s.ancestor_id and a.is_active = 1`,
      )
      .all();
    const facetsOf = new Map();
    for (const row of memberships) facetsOf.set(row.productId, [...(facetsOf.get(row.productId) ?? []), row.code]);
    const products = db
      .prepare(
        `
      select p.id, p.code, p.name, p.description, p.shop_price_cents as priceCents, p.web_stock as stock
      from product p join product_store ps on ps.product_id = p.id and ps.store_code = 'WEB'
      where p.is_active = 1 and p.hidden_web = 0 order by p.id`,
      )
      .all()
      .map((p) => ({ ...p, categories: (facetsOf.get(p.id) ?? []).sort() }));
    const nameOf = new Map(categories.map((c) => [c.id, uniqueName(c)]));
    const collections = categories.map((c) => ({
      name: nameOf.get(c.id),
      slug: `c-${c.id}`,
      parentName: c.parentId === null ? undefined : nameOf.get(c.parentId),
      inheritFilters: false,
      filters: [{ code: 'facet-value-filter', args: { facetValueNames: [`category:${c.code}`], containsAny: false } }],
    }));
    return { projectProducts, products, collections };
  } finally {
    db.close();
  }
}

/** Populator links a collection to its parent by name: a name shared by two categories gets its code. */
function uniqueName(category) {
  return `${category.name} (${category.code})`;
}

function initialData(collections) {
  return {
    defaultLanguage: 'en',
    defaultZone: 'Europe',
    countries: [{ name: 'Estonia', code: 'EE', zone: 'Europe' }],
    // The project's prices include VAT: a 0 % rate keeps Vendure's priceWithTax equal to them.
    taxRates: [{ name: 'Standard Tax', percentage: 0 }],
    shippingMethods: [{ name: 'Standard Shipping', price: 0 }],
    paymentMethods: [
      { name: 'Standard Payment', handler: { code: 'dummy-payment-handler', arguments: [{ name: 'automaticSettle', value: 'false' }] } },
    ],
    collections,
  };
}

function toCsv(products) {
  const rows = products.map((p) => [
    p.name,
    `p-${p.id}`,
    p.description ?? '',
    '',
    p.categories.map((code) => `category:${code}`).join('|'),
    '',
    '',
    p.code,
    (p.priceCents / 100).toFixed(2),
    'standard',
    String(Math.max(0, p.stock)),
    'false',
    '',
    '',
  ]);
  return [CSV_COLUMNS, ...rows].map((row) => row.map(csvField).join(',')).join('\n') + '\n';
}

function csvField(value) {
  return /[",\n\r]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** Until no job of the in-process queue is pending or running (the collection filters, then the reindex). */
async function waitForJobs(app) {
  const strategy = app.get(ConfigService).jobQueueOptions.jobQueueStrategy;
  let quietPolls = 0;
  let lastLog = 0;
  while (quietPolls < 3) {
    await sleep(500);
    const { items } = await strategy.findMany({});
    const open = items.filter((job) => !job.isSettled);
    const failed = items.filter((job) => job.state === 'FAILED');
    if (failed.length > 0) throw new Error(`job ${failed[0].queueName} failed: ${JSON.stringify(failed[0].error)}`);
    quietPolls = open.length === 0 ? quietPolls + 1 : 0;
    if (open.length > 0 && performance.now() - lastLog > 5000) {
      lastLog = performance.now();
      const byQueue = {};
      for (const job of open) byQueue[job.queueName] = `${job.state} ${Math.round(job.progress)} %`;
      log(`jobs open: ${open.length} ${JSON.stringify(byQueue)}`);
    }
  }
}
