// The catalogue's hot reads on a 200,000-product catalogue, beside the raw node:http ceiling in the
// same run: product details and a category's product list (page 1 and page 50). Targets (issue 5):
// details at 40 % or more of the ceiling's requests/s, the category list at 25 % or more.
//
// Shoppers do not all read one product: each request draws its path at random from a set. The hot
// set is 5,000 products (what a day's traffic mostly touches) and the 40 largest categories of
// 1,000 to 10,000 products (typical browse pages; the few root categories above that are slower
// on a cache miss, see RESULTS.md); a cold row
// reads any of the 200,000 products, so the per-process caches rarely help (shown for information).
// Run with `npm run bench -- --only catalogue` (writes its section of bench/RESULTS.md).
import { join } from 'node:path';
import { sql } from 'kysely';
import { createDatabase } from '../src/db/database.js';
import { buildCatalogueDataset } from './catalogue-dataset.js';
import { startChild, type ChildSpec, type RunningChild } from './lib/child.js';
import { measureInterleaved, type LoadOptions, type LoadResult } from './lib/http-load.js';
import type { HttpRow } from './lib/report.js';

export interface CatalogueBenchOptions {
  products: number;
  hotProducts: number;
  categories: number;
}

export const CATALOGUE_OPTIONS: CatalogueBenchOptions = { products: 200_000, hotProducts: 5_000, categories: 40 };

export interface CatalogueSection {
  options: CatalogueBenchOptions;
  dataset: { products: number; seconds: number };
  categorySizes: { min: number; max: number };
  ceiling: HttpRow;
  rows: HttpRow[];
}

interface Scenario {
  name: string;
  server: 'ceiling' | 'service' | 'cold';
  paths: string[];
  target?: number;
}

export async function benchCatalogue(
  tmp: string,
  root: string,
  serviceSpec: (dbFile: string) => ChildSpec,
  load: LoadOptions,
  options: CatalogueBenchOptions,
  log: (line: string) => void,
): Promise<CatalogueSection> {
  const dbFile = join(tmp, 'catalogue.db');
  log(`catalogue: generating ${options.products} products`);
  const dataset = await buildCatalogueDataset({ products: options.products, databaseUrl: `sqlite:${dbFile}`, log });
  log(`catalogue: ${dataset.products} products in ${dataset.seconds.toFixed(0)} s`);
  const { productIds, allProductIds, categories } = await pickTargets(dbFile, options);
  const scenarios: Scenario[] = [
    { name: 'ceiling: raw `node:http`, small JSON', server: 'ceiling', paths: ['/'] },
    {
      name: `\`GET /product/:id\`, ${productIds.length.toLocaleString('en-US')} hot products`,
      server: 'service',
      paths: productIds.map((id) => `/product/${id}`),
      target: 0.4,
    },
    {
      name: '`GET /category/:id/products?page=1`',
      server: 'service',
      paths: categories.map((c) => `/category/${c.id}/products?page=1`),
      target: 0.25,
    },
    {
      name: '`GET /category/:id/products?page=50`',
      server: 'service',
      paths: categories.map((c) => `/category/${c.id}/products?page=50`),
      target: 0.25,
    },
    {
      name: `\`GET /product/:id\`, any of ${allProductIds.length.toLocaleString('en-US')} products (cold caches)`,
      server: 'service',
      paths: allProductIds.map((id) => `/product/${id}`),
    },
  ];
  // Every service row again against a second service with the per-process caches off (issue 19):
  // what a long tail of shoppers costs, each row shown beside its cached figures.
  const measured: Scenario[] = [
    ...scenarios,
    ...scenarios.filter((s) => s.server === 'service').map((s): Scenario => ({ name: coldName(s), server: 'cold', paths: s.paths })),
  ];
  const children: RunningChild[] = [];
  try {
    const ceiling = await startChild({ script: 'bench/ceiling-server.mjs', readyPath: '/' }, root);
    children.push(ceiling);
    const service = await startChild(serviceSpec(dbFile), root);
    children.push(service);
    const spec = serviceSpec(dbFile);
    const cold = await startChild({ ...spec, env: { ...spec.env, ...CACHES_OFF } }, root);
    children.push(cold);
    const servers = { ceiling, service, cold };
    log(
      `catalogue: ${measured.length} targets, ${load.warmupSeconds} s warm-up each, then ${load.durationSeconds} s each in ${load.sliceSeconds} s slices`,
    );
    const results = await measureInterleaved(
      measured.map((s) => ({
        name: s.name,
        url: servers[s.server].baseUrl,
        paths: s.paths,
        serverCpuSeconds: servers[s.server].cpuSeconds,
      })),
      load,
    );
    const row = (s: Scenario): HttpRow => {
      const result = results.get(s.name) as LoadResult;
      log(
        `  ${s.name}: ${Math.round(result.requestsPerSecond)} req/s, p99 ${result.p99Ms} ms, non-2xx ${result.non2xx}, errors ${result.errors}`,
      );
      const cachesOff = results.get(coldName(s));
      if (cachesOff !== undefined)
        log(
          `  ${s.name}, caches off: ${Math.round(cachesOff.requestsPerSecond)} req/s, p99 ${cachesOff.p99Ms} ms, non-2xx ${cachesOff.non2xx}`,
        );
      return { name: s.name, result, target: s.target, cachesOff };
    };
    const [ceilingRow, ...rows] = scenarios.map(row);
    return {
      options,
      dataset: { products: dataset.products, seconds: dataset.seconds },
      categorySizes: { min: Math.min(...categories.map((c) => c.size)), max: Math.max(...categories.map((c) => c.size)) },
      ceiling: ceilingRow!,
      rows,
    };
  } finally {
    for (const child of children) await child.stop();
  }
}

/** The per-process caches off: every catalogue read goes to the database (issue 19). */
export const CACHES_OFF = { CATALOGUE_CACHE_TTL_MS: '0', CATALOGUE_LIST_CACHE_TTL_MS: '0' };

const coldName = (s: Scenario) => `${s.name}, caches off`;

/**
 * Products a guest of WEB may see, and the largest WEB categories whose subtree holds at least
 * 50 pages of 20 (so page 50 is a real page, not an empty one past the end).
 */
async function pickTargets(dbFile: string, options: CatalogueBenchOptions) {
  const database = createDatabase(`sqlite:${dbFile}`);
  try {
    const db = database.db;
    const visible = await db
      .selectFrom('product as p')
      .innerJoin('product_store as ps', (join) => join.onRef('ps.product_id', '=', 'p.id').on('ps.store_code', '=', 'WEB'))
      .select('p.id')
      .where('p.is_active', '=', true)
      .where('p.hidden_web', '=', false)
      .orderBy('p.id')
      .execute();
    const allProductIds = visible.map((row) => row.id);
    // Every n-th visible product: spread over the whole catalogue, the same set in every run.
    const step = Math.max(1, Math.floor(allProductIds.length / options.hotProducts));
    const productIds = allProductIds.filter((_, index) => index % step === 0).slice(0, options.hotProducts);
    const sizes = await sql<{ id: number; size: number }>`
      with recursive subtree(root, id) as (
        select id, id from category where store_code = 'WEB' and is_active = 1
        union all
        select subtree.root, category.id from category join subtree on category.parent_id = subtree.id where category.is_active = 1
      )
      select subtree.root as id, count(distinct p.id) as size
      from subtree
      join product_category pc on pc.category_id = subtree.id
      join product p on p.id = pc.product_id and p.is_active = 1 and p.hidden_web = 0
      join product_store ps on ps.product_id = p.id and ps.store_code = 'WEB'
      group by subtree.root
      having count(distinct p.id) between 1000 and 10000
      order by size desc, id
    `.execute(db);
    const categories = sizes.rows.slice(0, options.categories).map((row) => ({ id: Number(row.id), size: Number(row.size) }));
    if (categories.length === 0) throw new Error('no WEB category has 1,000 products: the dataset is too small for page 50');
    return { productIds, allProductIds, categories };
  } finally {
    await database.close();
  }
}
