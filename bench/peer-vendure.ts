// Side by side with a peer backend (issue 19): the raw node:http ceiling, this service with its caches
// off, and Vendure 3.7 on SQLite (bench/peers/vendure/, installed on its own, outside the project's
// dependencies) holding the same catalogue, in one run, interleaved: product details of a random
// product, page 1 of a large category, a common-word search. Vendure answers the same questions through
// its Shop API (GraphQL over GET: product(slug), collection + search(collectionSlug), search(term)).
//
//   npx tsx bench/catalogue-dataset.ts --products 20000                   (bench/.tmp/catalogue-20000.db)
//   (cd bench/peers/vendure && npm ci && node populate.mjs --from ../../.tmp/catalogue-20000.db)
//   npm run build && npx tsx bench/peer-vendure.ts [--database bench/.tmp/catalogue-20000.db]
//     [--vendure-database bench/peers/vendure/data/vendure-20000.sqlite] [--duration 10] [--connections 50]
//
// Both databases are copied first, so runs leave them as they were. The load generator is pinned to
// CPU 0 and the servers to CPU 1 where taskset allows. See bench/peers/vendure/README.md for what is
// compared and how fairly.
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { createDatabase } from '../src/db/database.js';
import { pinLoadGenerator, startChild, type RunningChild } from './lib/child.js';
import { measureInterleaved, type LoadResult } from './lib/http-load.js';
import { pickSearchTargets } from './lib/search-targets.js';
import { fold } from '../src/modules/search/query-text.js';
import { PEER_QUERIES, probeBoth, shopApiPath, type PeerProbe } from './peers/vendure/shop-api.js';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const PEER_DIR = join(ROOT, 'bench', 'peers', 'vendure');
const CACHES_OFF = { CATALOGUE_CACHE_TTL_MS: '0', CATALOGUE_LIST_CACHE_TTL_MS: '0', SEARCH_RATE_LIMIT_PER_IP: '1000000000/1s' };
/** Vendure boots Nest, TypeORM and Apollo: slower than the service, more so on a busy machine. */
const PEER_READY_MS = 180_000;

interface Row {
  name: string;
  service: string[];
  peer: string[];
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      database: { type: 'string', default: join(ROOT, 'bench', '.tmp', 'catalogue-20000.db') },
      'vendure-database': { type: 'string' },
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '50' },
      service: { type: 'string', default: 'dist/main.js' },
    },
    strict: true,
  });
  const peerDatabase =
    values['vendure-database'] ?? join(PEER_DIR, 'data', basename(values.database).replace(/^catalogue-(\d+)\.db$/, 'vendure-$1.sqlite'));
  if (!existsSync(join(PEER_DIR, 'node_modules', '@vendure', 'core')))
    throw new Error('Vendure is not installed: cd bench/peers/vendure && npm ci (see its README.md)');
  if (!existsSync(peerDatabase)) throw new Error(`no Vendure database at ${peerDatabase}: make it with bench/peers/vendure/populate.mjs`);
  const tmp = mkdtempSync(join(tmpdir(), 'bench-peer-vendure-'));
  const dbFile = join(tmp, 'catalogue.db');
  const peerFile = join(tmp, 'vendure.sqlite');
  copyFileSync(values.database, dbFile);
  copyFileSync(peerDatabase, peerFile);
  const pinned = pinLoadGenerator();
  const children: RunningChild[] = [];
  try {
    const rows = await rowsOf(dbFile);
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
    const peer = await startChild(
      {
        script: 'bench/peers/vendure/server.mjs',
        args: ['--database', peerFile],
        env: { NODE_ENV: 'production' },
        readyPath: '/health',
        readyTimeoutMs: PEER_READY_MS,
      },
      ROOT,
    );
    children.push(peer);

    // Both answer, with data, and find about as much: GraphQL errors come with a 200, so look inside once.
    const probes: PeerProbe[] = [];
    for (const row of rows) probes.push(await probeBoth(row.name, service.baseUrl, row.service, peer.baseUrl, row.peer));

    const seconds = Number(values.duration);
    const load = {
      connections: Number(values.connections),
      pipelining: 1,
      warmupSeconds: 2,
      durationSeconds: seconds,
      sliceSeconds: seconds / 2,
    };
    const targets = [
      { name: 'ceiling', url: ceiling.baseUrl, paths: ['/'], serverCpuSeconds: ceiling.cpuSeconds },
      ...rows.flatMap((row) => [
        { name: `service: ${row.name}`, url: service.baseUrl, paths: row.service, serverCpuSeconds: service.cpuSeconds },
        { name: `vendure: ${row.name}`, url: peer.baseUrl, paths: row.peer, serverCpuSeconds: peer.cpuSeconds },
      ]),
    ];
    const results = await measureInterleaved(targets, load);
    const ceilingResult = results.get('ceiling') as LoadResult;
    const rate = (r: LoadResult) => Math.round(r.requestsPerSecond).toLocaleString('en-US');
    const share = (r: LoadResult) => `${((r.requestsPerSecond / ceilingResult.requestsPerSecond) * 100).toFixed(2)} %`;
    const cell = (r: LoadResult) =>
      `${rate(r)} (${share(r)}), p99 ${r.p99Ms} ms${r.serverCpuMicros === undefined ? '' : `, ${Math.round(r.serverCpuMicros).toLocaleString('en-US')} µs CPU`}` +
      (r.non2xx + r.errors > 0 ? `, ${r.non2xx} non-2xx, ${r.errors} errors` : '');
    const out = (line: string) => process.stdout.write(`${line}\n`);
    out(`side by side, ${load.connections} connections, ${seconds} s each, pinned: ${pinned}; service caches off`);
    out(`ceiling (raw node:http): ${rate(ceilingResult)} req/s, p99 ${ceilingResult.p99Ms} ms`);
    out('| Request | this service, caches off | Vendure 3.7 (SQLite, default search) | service / Vendure |');
    out('|---|---|---|---|');
    for (const row of rows) {
      const own = results.get(`service: ${row.name}`) as LoadResult;
      const theirs = results.get(`vendure: ${row.name}`) as LoadResult;
      const ratio =
        theirs.requestsPerSecond > 0 ? `${(own.requestsPerSecond / theirs.requestsPerSecond).toFixed(1)}x` : 'n/a (none answered)';
      out(`| ${row.name} | ${cell(own)} | ${cell(theirs)} | ${ratio} |`);
    }
    out('\nWhat each answered for the first of its paths (products found; Vendure counts via totalItems):');
    for (const probe of probes) out(`- ${probe.name}: service ${probe.service}; Vendure ${probe.peer}`);
  } finally {
    for (const child of children) await child.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The same products, categories and words for both servers, drawn from the project's dataset. */
async function rowsOf(dbFile: string): Promise<Row[]> {
  const database = createDatabase(`sqlite:${dbFile}`);
  try {
    const db = database.db;
    const visible = await sql<{ id: number }>`select p.id from product p
      join product_store ps on ps.product_id = p.id and ps.store_code = 'WEB'
      where p.is_active = 1 and p.hidden_web = 0 order by p.id`.execute(db);
    const ids = visible.rows.map((row) => row.id);
    const names = await sql<{ name: string }>`select p.name from product p
      join product_store ps on ps.product_id = p.id and ps.store_code = 'WEB'
      where p.is_active = 1 and p.hidden_web = 0`.execute(db);
    // Subtree sizes as a WEB guest sees them (populate.mjs gives each Vendure collection the same subtree).
    const sizes = await sql<{ id: number; size: number }>`
      select s.ancestor_id as id, count(distinct p.id) as size
      from category_subtree s
      join category c on c.id = s.ancestor_id and c.parent_id is not null
      join product_category pc on pc.category_id = s.category_id
      join product p on p.id = pc.product_id and p.is_active = 1 and p.hidden_web = 0
      join product_store ps on ps.product_id = p.id and ps.store_code = 'WEB'
      where s.store_code = 'WEB'
      group by s.ancestor_id order by size desc, id`.execute(db);
    // The issue's mid-sized categories (3,000-10,000 products); a small dataset has none, so its largest.
    const mid = sizes.rows.filter((row) => row.size >= 3000 && row.size <= 10000);
    const categories = mid.length > 0 ? mid : sizes.rows.slice(0, 1);
    const range = `${Math.min(...categories.map((c) => c.size))}-${Math.max(...categories.map((c) => c.size))}`;
    const targets = await pickSearchTargets(database);
    return [
      {
        name: `product details, any of ${ids.length.toLocaleString('en-US')}`,
        service: ids.map((id) => `/product/${id}`),
        peer: ids.map((id) => shopApiPath(PEER_QUERIES.product, { slug: `p-${id}` })),
      },
      {
        name: `category page 1, ${categories.length} categories of ${range}`,
        service: categories.map((c) => `/category/${c.id}/products?page=1`),
        peer: categories.map((c) => shopApiPath(PEER_QUERIES.category, { slug: `c-${c.id}` })),
      },
      {
        name: `search, ${targets.common.length} common words (${targets.commonRange.join('-')} hits)`,
        service: targets.common.map((word) => `/product/search?q=${encodeURIComponent(word)}`),
        peer: spellings(targets.common, names.rows).map((word) => shopApiPath(PEER_QUERIES.search, { term: word })),
      },
    ];
  } finally {
    await database.close();
  }
}

/**
 * The service's search folds case and diacritics ("oigus" finds "Õigus"); Vendure's SQLite search is
 * a LIKE '%term%' that folds only ASCII case. So each folded word is sent to Vendure as it is most
 * often written in the titles.
 */
function spellings(words: string[], titles: Array<{ name: string }>): string[] {
  const seen = new Map<string, Map<string, number>>(words.map((word) => [word, new Map()]));
  for (const { name } of titles)
    for (const token of name.split(/[^\p{L}\p{N}]+/u)) {
      const forms = seen.get(fold(token));
      if (forms) forms.set(token, (forms.get(token) ?? 0) + 1);
    }
  return words.map((word) => [...(seen.get(word) ?? [])].sort((a, b) => b[1] - a[1])[0]?.[0] ?? word);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
