// Search on a 200,000-product catalogue, beside the raw node:http ceiling in the same run: a common
// word, a rare word, an EAN/ISBN, a word with two filters, autocomplete and facets. Targets (issue 6):
// autocomplete at 25 % or more of the ceiling's requests/s, searches (filters included) at 10 % or more.
// The same scenarios run on SQLite and, when BENCH_POSTGRES_URL names a server where the user may
// create databases, on PostgreSQL. Run with `npm run bench -- --only search` (writes its section).
//
// Each row spreads its requests over a set of paths (20 common words, 500 rare words, 1,000 EANs,
// about 150 prefixes), so the per-process result caches (CATALOGUE_CACHE_TTL_MS, 5 s by default)
// hold popular answers as in production while rare ones miss. Then the same requests run on a
// second service with the caches off (CATALOGUE_CACHE_TTL_MS=0, CATALOGUE_LIST_CACHE_TTL_MS=0), at the
// same load (the "caches off" columns) and on a few connections: what a miss costs (information).
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { createDatabase, type DatabaseHandle } from '../src/db/database.js';
import { CACHES_OFF } from './catalogue.js';
import { buildCatalogueDataset } from './catalogue-dataset.js';
import { startChild, type ChildSpec, type RunningChild } from './lib/child.js';
import { measureInterleaved, type LoadOptions, type LoadResult } from './lib/http-load.js';
import type { HttpRow } from './lib/report.js';
import { pickSearchTargets, type SearchTargets } from './lib/search-targets.js';

export interface SearchBenchOptions {
  products: number;
  /** Admin URL of a PostgreSQL server; without it the PostgreSQL run is skipped. */
  postgresUrl: string | undefined;
}

export interface SearchEngineRun {
  engine: 'SQLite' | 'PostgreSQL';
  dataset: { products: number; seconds: number; reused: boolean };
  targets: SearchTargets;
  ceiling: HttpRow;
  rows: HttpRow[];
  /** Every request a cache miss, on few connections (information). */
  misses: HttpRow[];
  /** Short names of `rows`, in order. */
  labels: string[];
}

/**
 * The load generator is one client address sending thousands of searches a second: the per-address
 * limit (SEARCH_RATE_LIMIT_PER_IP, issue 12) is lifted, as the auth limits are for the login part.
 */
const UNLIMITED = { SEARCH_RATE_LIMIT_PER_IP: '1000000000/1s' };

/** Connections of the miss rows: enough to keep the index busy, few enough not to queue seconds of work. */
export const MISS_CONNECTIONS = 4;

export interface SearchSection {
  products: number;
  runs: SearchEngineRun[];
  /** Why an engine did not run. */
  skipped: string[];
}

type ServerName = 'ceiling' | 'service' | 'uncached';

interface Scenario {
  name: string;
  label?: string;
  server: ServerName;
  paths: string[];
  target?: number;
}

export async function benchSearch(
  tmp: string,
  root: string,
  serviceSpec: (dbFile: string, env?: Record<string, string>) => ChildSpec,
  load: LoadOptions,
  options: SearchBenchOptions,
  log: (line: string) => void,
): Promise<SearchSection> {
  const section: SearchSection = { products: options.products, runs: [], skipped: [] };
  // The catalogue part (same run, same size) leaves its database behind: the same dataset, reused.
  const shared = join(tmp, 'catalogue.db');
  const reuse = existsSync(shared) && (await productCount(`sqlite:${shared}`)) === options.products;
  const sqliteFile = reuse ? shared : join(tmp, 'search.db');
  const sqliteDataset = reuse ? { products: options.products, seconds: 0 } : await dataset(`sqlite:${sqliteFile}`, options.products, log);
  section.runs.push(
    await runEngine(
      'SQLite',
      `sqlite:${sqliteFile}`,
      (env) => serviceSpec(sqliteFile, env),
      { ...sqliteDataset, reused: reuse },
      root,
      load,
      log,
    ),
  );

  if (!options.postgresUrl) {
    section.skipped.push('PostgreSQL: BENCH_POSTGRES_URL not set');
    return section;
  }
  const name = `storefront_bench_search_${randomBytes(4).toString('hex')}`;
  await admin(options.postgresUrl, `create database ${name}`);
  try {
    const url = new URL(options.postgresUrl);
    url.pathname = `/${name}`;
    const pgDataset = await dataset(url.toString(), options.products, log);
    const spec = (env: Record<string, string>) => serviceSpec(join(tmp, 'unused.db'), { ...env, DATABASE_URL: url.toString() });
    section.runs.push(await runEngine('PostgreSQL', url.toString(), spec, { ...pgDataset, reused: false }, root, load, log));
  } finally {
    await admin(options.postgresUrl, `drop database if exists ${name} with (force)`);
  }
  return section;
}

async function runEngine(
  engine: SearchEngineRun['engine'],
  databaseUrl: string,
  spec: (env: Record<string, string>) => ChildSpec,
  datasetInfo: SearchEngineRun['dataset'],
  root: string,
  load: LoadOptions,
  log: (line: string) => void,
): Promise<SearchEngineRun> {
  const database = createDatabase(databaseUrl);
  let targets: SearchTargets;
  try {
    targets = await pickSearchTargets(database);
  } finally {
    await database.close();
  }
  const children: RunningChild[] = [];
  try {
    const servers: Record<ServerName, RunningChild> = {
      ceiling: await startChild({ script: 'bench/ceiling-server.mjs', readyPath: '/' }, root),
      service: await startChild({ ...spec(UNLIMITED), readyPath: '/product/search?q=a' }, root),
      uncached: await startChild({ ...spec({ ...UNLIMITED, ...CACHES_OFF }), readyPath: '/product/search?q=a' }, root),
    };
    children.push(...Object.values(servers));
    const measure = async (scenarios: Scenario[], options: LoadOptions): Promise<HttpRow[]> => {
      log(
        `search (${engine}): ${scenarios.length} targets, ${options.connections} connections, ${options.warmupSeconds} s warm-up each, then ${options.durationSeconds} s each in ${options.sliceSeconds} s slices`,
      );
      const results = await measureInterleaved(
        scenarios.map((s) => ({
          name: s.name,
          url: servers[s.server].baseUrl,
          paths: s.paths,
          serverCpuSeconds: servers[s.server].cpuSeconds,
        })),
        options,
      );
      return scenarios.map((s) => {
        const result = results.get(s.name) as LoadResult;
        log(
          `  ${s.name}: ${Math.round(result.requestsPerSecond)} req/s, p99 ${result.p99Ms} ms, non-2xx ${result.non2xx}, errors ${result.errors}`,
        );
        return { name: s.name, result, target: s.target };
      });
    };
    const scenarios = scenariosFor(targets);
    const [ceiling, ...cachedRows] = await measure(scenarios, load);
    // The "caches off" columns (issue 19): the same rows at the same load on the service without caches,
    // a pass of their own so that their queued work never spills into a cached row's slice.
    const cold = await measure(
      scenarios.slice(1).map((s): Scenario => ({ name: `${s.name}, caches off`, server: 'uncached', paths: s.paths })),
      load,
    );
    const rows = cachedRows.map((row, index): HttpRow => ({ ...row, cachesOff: cold[index]!.result }));
    // Afterwards and apart: 50 connections of misses would queue seconds of database work that
    // spills into the next target's slice and skews every ratio.
    const misses = await measure(missScenarios(targets), { ...load, connections: MISS_CONNECTIONS });
    return {
      engine,
      dataset: datasetInfo,
      targets,
      ceiling: ceiling!,
      rows,
      misses,
      labels: scenarios.slice(1).map((s) => s.label ?? s.name),
    };
  } finally {
    for (const child of children) await child.stop();
  }
}

function scenariosFor(t: SearchTargets): Scenario[] {
  const q = (word: string) => `/product/search?q=${encodeURIComponent(word)}`;
  const n = (count: number) => count.toLocaleString('en-US');
  const common = `${t.common.length} common words (${n(t.commonRange[0])}–${n(t.commonRange[1])} products each)`;
  return [
    { name: 'ceiling: raw `node:http`, small JSON', server: 'ceiling', paths: ['/'] },
    { name: `\`GET /product/search?q=\`, ${common}`, label: 'common words', server: 'service', paths: t.common.map(q), target: 0.1 },
    {
      name: `\`GET /product/search?q=\`, ${t.rare.length} rare words (${t.rareRange[0]}–${t.rareRange[1]} products each)`,
      label: 'rare words',
      server: 'service',
      paths: t.rare.map(q),
      target: 0.1,
    },
    {
      name: `\`GET /product/search?q=\`, EAN/ISBN of ${n(t.eans.length)} products (half with hyphens)`,
      label: 'EAN/ISBN',
      server: 'service',
      paths: t.eans.map(q),
      target: 0.1,
    },
    {
      name: '`GET /product/search?q=…&type=BOOK&priceMax=20`, the common words with two filters',
      label: 'two filters',
      server: 'service',
      paths: t.common.map((w) => `${q(w)}&type=BOOK&priceMax=20`),
      target: 0.1,
    },
    {
      name: `\`GET /autocomplete?term=\`, ${t.prefixes.length} prefixes of 2–5 letters`,
      label: 'autocomplete',
      server: 'service',
      paths: t.prefixes.map((p) => `/autocomplete?term=${encodeURIComponent(p)}`),
      target: 0.25,
    },
    {
      name: '`GET /product-dynamic-filter/filters?q=`, the common words',
      label: 'facets',
      server: 'service',
      paths: t.common.map((w) => `/product-dynamic-filter/filters?q=${encodeURIComponent(w)}`),
      target: 0.1,
    },
  ];
}

/** The same requests on the service without caches: what a miss costs. */
function missScenarios(t: SearchTargets): Scenario[] {
  const q = (word: string) => `/product/search?q=${encodeURIComponent(word)}`;
  return [
    { name: 'search, the common words', server: 'uncached', paths: t.common.map(q) },
    { name: 'search, the rare words', server: 'uncached', paths: t.rare.map(q) },
    { name: 'search, the EANs', server: 'uncached', paths: t.eans.map(q) },
    { name: 'search, the common words with two filters', server: 'uncached', paths: t.common.map((w) => `${q(w)}&type=BOOK&priceMax=20`) },
    { name: 'autocomplete, the prefixes', server: 'uncached', paths: t.prefixes.map((p) => `/autocomplete?term=${encodeURIComponent(p)}`) },
    {
      name: 'facets, the common words',
      server: 'uncached',
      paths: t.common.map((w) => `/product-dynamic-filter/filters?q=${encodeURIComponent(w)}`),
    },
  ];
}

async function dataset(url: string, products: number, log: (line: string) => void): Promise<{ products: number; seconds: number }> {
  log(`search: generating ${products} products into ${url.replace(/\/\/[^@]*@/, '//')}`);
  const result = await buildCatalogueDataset({ products, databaseUrl: url, log });
  log(`search: ${result.products} products in ${result.seconds.toFixed(0)} s, index folded in ${result.indexSeconds.toFixed(0)} s`);
  return { products: result.products, seconds: result.seconds + result.indexSeconds };
}

async function productCount(url: string): Promise<number> {
  const database: DatabaseHandle = createDatabase(url);
  try {
    const row = await database.db
      .selectFrom('product')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  } catch {
    return 0;
  } finally {
    await database.close();
  }
}

async function admin(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
