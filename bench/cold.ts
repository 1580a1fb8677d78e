// Cold reads (issue 19): the catalogue and search requests a long tail of shoppers sends, with the
// per-process caches off (CATALOGUE_CACHE_TTL_MS=0, CATALOGUE_LIST_CACHE_TTL_MS=0), beside the raw
// node:http ceiling in the same run. Targets: product details 15 % of the ceiling, category page 1
// 3 % with p99 under 50 ms, common-word and two-filter search 2 % with p99 under 100 ms.
//
//   npx tsx bench/catalogue-dataset.ts --products 200000        (once: bench/.tmp/catalogue-200000.db)
//   npm run build && npx tsx bench/cold.ts [--database bench/.tmp/catalogue-200000.db] [--duration 10] [--connections 50]
//     [--only <part of a row's name>] [--service <another build's dist/main.js>] [--autocomplete [--crowd]]
//
// --autocomplete adds autocomplete rows (not run by default): the search bench's prefixes for a guest of WEB and of
// WEB2. --crowd first makes the copy a catalogue whose autocomplete shortlists are crowded by products the shopper
// does not see (crowdCatalogue below), and adds a row of the prefixes of the word it hid.
//
// The dataset is copied first (the service migrates its copy), so one dataset serves every build.
// The load generator is pinned to CPU 0 and the servers to CPU 1 where taskset allows.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { createDatabase } from '../src/db/database.js';
import { createEngine, foldBatch } from '../src/modules/search/index.js';
import { pinLoadGenerator, startChild, type RunningChild } from './lib/child.js';
import { measureInterleaved, type LoadResult } from './lib/http-load.js';
import { pickSearchTargets } from './lib/search-targets.js';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const CACHES_OFF = { CATALOGUE_CACHE_TTL_MS: '0', CATALOGUE_LIST_CACHE_TTL_MS: '0', SEARCH_RATE_LIMIT_PER_IP: '1000000000/1s' };

interface Scenario {
  name: string;
  paths: string[];
  ceiling?: boolean;
  target?: { ratio: number; p99Ms?: number };
  headers?: Record<string, string>;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      database: { type: 'string', default: join(ROOT, 'bench', '.tmp', 'catalogue-200000.db') },
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '50' },
      only: { type: 'string' },
      /** The service's compiled entry point: another build's main.js measures that build (a before/after). */
      service: { type: 'string', default: 'dist/main.js' },
      autocomplete: { type: 'boolean', default: false },
      crowd: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const tmp = mkdtempSync(join(tmpdir(), 'bench-cold-'));
  const dbFile = join(tmp, 'catalogue.db');
  copyFileSync(values.database, dbFile);
  const hidden = values.crowd ? await crowdCatalogue(dbFile) : undefined;
  const pinned = pinLoadGenerator();
  const children: RunningChild[] = [];
  try {
    const ceiling = await startChild({ script: 'bench/ceiling-server.mjs', readyPath: '/' }, ROOT);
    children.push(ceiling);
    const service = await startChild(
      {
        script: values.service,
        args: ['serve'],
        env: { DATABASE_URL: `sqlite:${dbFile}`, LOG_LEVEL: 'warn', BASE_PATH: '', ...CACHES_OFF },
        readyPath: '/site/health',
      },
      ROOT,
    );
    children.push(service);
    const autocomplete = values.autocomplete ? await autocompleteScenarios(dbFile, hidden) : [];
    const scenarios = [...(await scenariosOf(dbFile)), ...autocomplete].filter(
      (s) => s.ceiling || !values.only || s.name.includes(values.only),
    );
    const seconds = Number(values.duration);
    const load = {
      connections: Number(values.connections),
      pipelining: 1,
      warmupSeconds: 2,
      durationSeconds: seconds,
      sliceSeconds: seconds / 2,
    };
    const results = await measureInterleaved(
      scenarios.map((s) => ({
        name: s.name,
        url: (s.ceiling ? ceiling : service).baseUrl,
        paths: s.paths,
        headers: s.headers,
        serverCpuSeconds: (s.ceiling ? ceiling : service).cpuSeconds,
      })),
      load,
    );
    const ceilingRate = (results.get(scenarios[0]!.name) as LoadResult).requestsPerSecond;
    process.stdout.write(`caches off, ${load.connections} connections, ${seconds} s each, pinned: ${pinned}\n`);
    process.stdout.write(
      '| Request | req/s | of ceiling | p99 ms | p99 ms, open connections | CPU µs/req | non-2xx | errors | target |\n|---|---|---|---|---|---|---|---|---|\n',
    );
    for (const s of scenarios) {
      const r = results.get(s.name) as LoadResult;
      const ratio = r.requestsPerSecond / ceilingRate;
      const target = s.target ? `${(s.target.ratio * 100).toFixed(0)} %${s.target.p99Ms ? `, p99 < ${s.target.p99Ms} ms` : ''}` : '';
      const cpu = r.serverCpuMicros === undefined ? '' : Math.round(r.serverCpuMicros).toLocaleString('en-US');
      process.stdout.write(
        `| ${s.name} | ${Math.round(r.requestsPerSecond).toLocaleString('en-US')} | ${(ratio * 100).toFixed(2)} % | ${r.p99Ms} | ${r.p99OpenMs} | ${cpu} | ${r.non2xx} | ${r.errors} | ${target} |\n`,
      );
    }
  } finally {
    for (const child of children) await child.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Random visible products, mid-sized categories (3,000-10,000 products of a WEB guest) and root categories, search words. */
async function scenariosOf(dbFile: string): Promise<Scenario[]> {
  const database = createDatabase(`sqlite:${dbFile}`);
  try {
    const db = database.db;
    const visible = await sql<{
      id: number;
    }>`select p.id from product p join product_store ps on ps.product_id = p.id and ps.store_code = 'WEB'
      where p.is_active = 1 and p.hidden_web = 0 order by p.id`.execute(db);
    const ids = visible.rows.map((row) => row.id);
    const sizes = await sql<{ id: number; size: number; root: number }>`
      with recursive subtree(root, id) as (
        select id, id from category where store_code = 'WEB' and is_active = 1
        union all
        select subtree.root, category.id from category join subtree on category.parent_id = subtree.id where category.is_active = 1
      )
      select subtree.root as id, count(distinct p.id) as size, (select parent_id is null from category where id = subtree.root) as root
      from subtree
      join product_category pc on pc.category_id = subtree.id
      join product p on p.id = pc.product_id and p.is_active = 1 and p.hidden_web = 0
      join product_store ps on ps.product_id = p.id and ps.store_code = 'WEB'
      group by subtree.root order by size desc, id`.execute(db);
    const mid = sizes.rows.filter((row) => row.size >= 3000 && row.size <= 10000 && !row.root).map((row) => row.id);
    const roots = sizes.rows.filter((row) => row.root).map((row) => row.id);
    const targets = await pickSearchTargets(database);
    const q = (word: string) => `/product/search?q=${encodeURIComponent(word)}`;
    return [
      { name: 'ceiling: raw `node:http`', paths: ['/'], ceiling: true },
      {
        name: `product details, any of ${ids.length.toLocaleString('en-US')}`,
        paths: ids.map((id) => `/product/${id}`),
        target: { ratio: 0.15 },
      },
      {
        name: `category page 1, ${mid.length} categories of 3,000-10,000`,
        paths: mid.map((id) => `/category/${id}/products?page=1`),
        target: { ratio: 0.03, p99Ms: 50 },
      },
      {
        name: `category page 1, ${roots.length} root categories`,
        paths: roots.map((id) => `/category/${id}/products?page=1`),
        target: { ratio: 0.03, p99Ms: 50 },
      },
      {
        name: `search, ${targets.common.length} common words (${targets.commonRange.join('-')} hits)`,
        paths: targets.common.map(q),
        target: { ratio: 0.02, p99Ms: 100 },
      },
      {
        name: 'search, common words & type=BOOK & priceMax=20',
        paths: targets.common.map((w) => `${q(w)}&type=BOOK&priceMax=20`),
        target: { ratio: 0.02, p99Ms: 100 },
      },
    ];
  } finally {
    await database.close();
  }
}

/** Autocomplete for shoppers of both stores; with `hidden`, for a WEB guest typing the start of that hidden word too. */
async function autocompleteScenarios(dbFile: string, hidden: string | undefined): Promise<Scenario[]> {
  const database = createDatabase(`sqlite:${dbFile}`);
  try {
    const { prefixes } = await pickSearchTargets(database);
    const paths = (terms: string[]) => terms.map((term) => `/autocomplete?term=${encodeURIComponent(term)}`);
    const rows: Scenario[] = [
      { name: `autocomplete, ${prefixes.length} prefixes, WEB guest`, paths: paths(prefixes) },
      { name: `autocomplete, ${prefixes.length} prefixes, WEB2 guest`, paths: paths(prefixes), headers: { store: 'WEB2' } },
    ];
    if (hidden) {
      const typed = [3, 4, 5, 6].map((length) => hidden.slice(0, length));
      rows.push({ name: `autocomplete, ${typed.join(' ')} (hidden word), WEB guest`, paths: paths(typed) });
    }
    return rows;
  } finally {
    await database.close();
  }
}

/**
 * Makes the copy a catalogue where autocomplete's shortlist (the best text matches of every store and audience) is
 * crowded by products the shopper does not see: WEB2 keeps every 40th of its products (a small store beside WEB, ~900),
 * and the products with the title word of 8 letters or more that most titles hold are hidden from the web shop. The
 * changes are folded here, as the service would in the background (~40 s). Returns the hidden word.
 */
async function crowdCatalogue(dbFile: string): Promise<string> {
  const database = createDatabase(`sqlite:${dbFile}`);
  try {
    const db = database.db;
    await sql`create virtual table temp.title_words using fts5vocab(main, 'search_product_fts', 'col')`.execute(db);
    const word = await sql<{ term: string }>`select term from temp.title_words
      where col = 'title' and length(term) >= 8 order by doc desc, term limit 1`.execute(db);
    const hidden = word.rows[0]!.term;
    await sql`delete from product_store where store_code = 'WEB2' and product_id % 40 <> 0`.execute(db);
    await sql`update product set hidden_web = ${true} where id in
      (select rowid from search_product_fts where search_product_fts match ${`title : "${hidden}"`})`.execute(db);
    const engine = createEngine(database);
    while ((await foldBatch(database, engine, 5_000, Date.now())) > 0);
    return hidden;
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
