// The basket on a 200,000-product catalogue, beside the raw node:http ceiling in the same run:
// `GET /basket` of a 10-line guest basket and `POST /basket/add-product`. Targets (issue 13):
// GET /basket at 20 % or more of the ceiling's requests/s, add-product at 10 % or more, on SQLite;
// p99 and (with --postgres-url) the PostgreSQL figures are reported beside them.
//
//   npm run build && npx tsx bench/basket.ts [--products 200000] [--postgres-url postgres://.../db] [--seconds 10] [--reuse]
//     [--before bench/.tmp/before/dist/main.js]
//
// Requests spread over many baskets and products as shoppers' do: every GET reads one of 300
// baskets of 10 lines, every add-product adds one of 2,000 products to one of 3,000 other baskets
// that hold 5 lines at the start (so they stay about the GET's size however fast the adds go).
// --before: another build of the service (compiled the same way, e.g. the commit before a change)
// is measured on the same database in the same slices, for a before/after comparison that the
// machine's load affects alike. Writes its section of bench/RESULTS.md (`<!-- bench:basket -->`).
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { cpus, loadavg, release, type } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon, { type RequestParams, type Result } from 'autocannon';
import { createDatabase } from '../src/db/database.js';
import { buildCatalogueDataset } from './catalogue-dataset.js';
import { killAllChildren, pinLoadGenerator, startChild, type RunningChild } from './lib/child.js';
import { writeResultsSection } from './lib/results-file.js';
import { median } from './lib/stats.js';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const BASKETS = 300;
const LINES = 10;
const ADD_PRODUCTS = 2_000;
const ADD_BASKETS = 3_000;
const ADD_BASKET_LINES = 5;
/** Baskets filled at once while setting up. */
const FILL_CONCURRENCY = 8;

interface Target {
  name: string;
  child: RunningChild;
  request: () => RequestParams;
  target?: number;
}

interface Row {
  name: string;
  rps: number;
  sliceRange: [number, number];
  p99: number;
  cpuMicros: number | undefined;
  total: number;
  non2xx: number;
  errors: number;
  target?: number;
}

const { values } = parseArgs({
  options: {
    products: { type: 'string', default: '200000' },
    'postgres-url': { type: 'string' },
    seconds: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    slice: { type: 'string', default: '2' },
    connections: { type: 'string', default: '50' },
    reuse: { type: 'boolean', default: false },
    before: { type: 'string' },
  },
});
const products = Number(values.products);
const load = {
  seconds: Number(values.seconds),
  warmup: Number(values.warmup),
  slice: Number(values.slice),
  connections: Number(values.connections),
};
const log = (line: string) => process.stderr.write(`${line}\n`);

/** Products a guest of WEB can order 999 of (no stock limit, not digital), for the baskets and the adds. */
async function orderableProducts(databaseUrl: string, count: number): Promise<number[]> {
  const database = createDatabase(databaseUrl);
  try {
    const rows = await database.db
      .selectFrom('product as p')
      .innerJoin('product_store as ps', (join) => join.onRef('ps.product_id', '=', 'p.id').on('ps.store_code', '=', 'WEB'))
      .select('p.id')
      .where('p.is_active', '=', true)
      .where('p.hidden_web', '=', false)
      .where('p.type', 'not in', ['EBOOK', 'AUDIOBOOK', 'VIRTUAL_GIFT_CARD'])
      .where((eb) => eb.or([eb('p.delivery_time', 'in', ['PREORDER', 'WEEKS_2_4']), eb('p.availability', '=', 'COMING_SOON')]))
      .where('p.availability', '!=', 'PERMANENTLY_OUT_OF_STOCK')
      .orderBy('p.id')
      .execute();
    const ids = rows.map((row) => Number(row.id));
    if (ids.length < count) throw new Error(`only ${ids.length} products without a stock limit; need ${count}`);
    const step = Math.floor(ids.length / count);
    return ids.filter((_, index) => index % step === 0).slice(0, count);
  } finally {
    await database.close();
  }
}

async function post(base: string, path: string, token: string | undefined, body: object) {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { 'basket-token': token } : {}) },
    body: JSON.stringify(body),
  });
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as { basketToken: string };
}

/** `count` guest baskets of `lines` lines each (distinct products), by HTTP as a shopper fills one. */
async function fillBaskets(base: string, ids: number[], count: number, lines: number): Promise<string[]> {
  const tokens: string[] = new Array<string>(count);
  let next = 0;
  const filler = async () => {
    for (let b = next++; b < count; b = next++) {
      let token: string | undefined;
      for (let l = 0; l < lines; l += 1)
        token = (await post(base, '/basket/add-product', token, { productId: ids[(b * 7 + l * 13) % ids.length], quantity: 1 }))
          .basketToken;
      tokens[b] = token!;
    }
  };
  await Promise.all(Array.from({ length: FILL_CONCURRENCY }, filler));
  return tokens;
}

const pick = <T>(values: readonly T[]) => values[Math.floor(Math.random() * values.length)]!;

async function measure(targets: Target[]): Promise<Row[]> {
  const run = (target: Target, duration: number) =>
    autocannon({
      url: target.child.baseUrl,
      duration,
      connections: load.connections,
      pipelining: 1,
      timeout: 10,
      requests: [{ setupRequest: (request) => ({ ...request, ...target.request() }) }],
    });
  for (const target of targets) await run(target, load.warmup);
  const slices = new Map<string, Array<Result & { cpu: number | undefined }>>(targets.map((t) => [t.name, []]));
  for (let left = load.seconds; left > 0; left -= load.slice) {
    for (const target of targets) {
      const before = target.child.cpuSeconds();
      const result = await run(target, Math.min(left, load.slice));
      const after = target.child.cpuSeconds();
      slices
        .get(target.name)!
        .push(Object.assign(result, { cpu: before === undefined || after === undefined ? undefined : after - before }));
    }
  }
  return targets.map((target) => {
    const results = slices.get(target.name)!;
    const sum = (f: (r: Result) => number) => results.reduce((total, r) => total + f(r), 0);
    const rates = results.map((r) => r.requests.total / r.duration);
    const cpuKnown = results.every((r) => r.cpu !== undefined);
    return {
      name: target.name,
      rps: sum((r) => r.requests.total) / sum((r) => r.duration),
      sliceRange: [Math.min(...rates), Math.max(...rates)],
      p99: median(results.map((r) => r.latency.p99)),
      cpuMicros: cpuKnown ? (results.reduce((t, r) => t + (r.cpu ?? 0), 0) / sum((r) => r.requests.total)) * 1e6 : undefined,
      total: sum((r) => r.requests.total),
      non2xx: sum((r) => r.non2xx),
      errors: sum((r) => r.errors + r.timeouts),
      target: target.target,
    };
  });
}

async function benchEngine(label: string, databaseUrl: string, ceiling: RunningChild, build: boolean): Promise<Row[]> {
  if (build) {
    log(`${label}: generating ${products} products`);
    const dataset = await buildCatalogueDataset({ products, databaseUrl, log });
    log(`${label}: ${dataset.products} products in ${dataset.seconds.toFixed(0)} s`);
  }
  const ids = await orderableProducts(databaseUrl, ADD_PRODUCTS);
  const builds = [{ label: '', script: 'dist/main.js' }];
  if (values.before) builds.push({ label: 'before: ', script: values.before });
  const services: RunningChild[] = [];
  try {
    const targets: Target[] = [
      { name: 'ceiling: raw `node:http`, small JSON', child: ceiling, request: () => ({ method: 'GET', path: '/' }) },
    ];
    for (const build of builds) {
      const service = await startChild(
        {
          script: build.script,
          args: ['serve'],
          env: {
            DATABASE_URL: databaseUrl,
            LOG_LEVEL: 'warn',
            BASE_PATH: '',
            BASKET_RATE_LIMIT_PER_IP: '100000000/1m',
            BASKET_WRITE_RATE_LIMIT_PER_IP: '100000000/1m',
          },
          readyPath: '/site/health',
        },
        ROOT,
      );
      services.push(service);
      const readBaskets = await fillBaskets(service.baseUrl, ids, BASKETS, LINES);
      const addBaskets = await fillBaskets(service.baseUrl, ids, ADD_BASKETS, ADD_BASKET_LINES);
      log(`${label}: ${build.label}${BASKETS + ADD_BASKETS} baskets filled`);
      targets.push(
        {
          name: `${build.label}\`GET /basket\`, ${LINES} lines, ${BASKETS} baskets`,
          child: service,
          target: build.label ? undefined : 0.2,
          request: () => ({ method: 'GET', path: '/basket', headers: { 'basket-token': pick(readBaskets) } }),
        },
        {
          name: `${build.label}\`POST /basket/add-product\`, ${ADD_PRODUCTS.toLocaleString('en-US')} products into ${ADD_BASKETS.toLocaleString('en-US')} baskets`,
          child: service,
          target: build.label ? undefined : 0.1,
          request: () => ({
            method: 'POST',
            path: '/basket/add-product',
            headers: { 'basket-token': pick(addBaskets), 'content-type': 'application/json' },
            body: JSON.stringify({ productId: pick(ids), quantity: 1 }),
          }),
        },
      );
    }
    log(`${label}: measuring`);
    const rows = await measure(targets);
    for (const row of rows)
      log(`  ${label} ${row.name}: ${Math.round(row.rps)} req/s, p99 ${row.p99} ms, non-2xx ${row.non2xx}, errors ${row.errors}`);
    return rows;
  } finally {
    for (const service of services) await service.stop();
  }
}

function table(label: string, rows: Row[], sqliteTargets: boolean): string {
  const ceiling = rows[0]!;
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  const lines = [
    `### ${label}`,
    '',
    '| Scenario | req/s (avg) | slice req/s (min–max) | p99 (ms) | server CPU µs/req | requests | non-2xx | errors | ratio to ceiling | target | result |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
  ];
  for (const row of rows) {
    const ratio = row.rps / ceiling.rps;
    const judged = sqliteTargets && row.target !== undefined;
    const result =
      row === ceiling ? 'reference' : !judged ? 'info' : ratio >= row.target! && row.non2xx === 0 && row.errors === 0 ? 'pass' : 'FAIL';
    lines.push(
      `| ${row.name} | ${fmt(row.rps)} | ${fmt(row.sliceRange[0])}–${fmt(row.sliceRange[1])} | ${row.p99} | ${row.cpuMicros === undefined ? '—' : row.cpuMicros.toFixed(1)} | ${fmt(row.total)} | ${row.non2xx} | ${row.errors} | ${(ratio * 100).toFixed(1)} % | ${row.target === undefined ? '—' : `≥ ${(row.target * 100).toFixed(1)} %`} | ${result} |`,
    );
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const pinned = pinLoadGenerator();
  const tmp = join(ROOT, 'bench', '.tmp');
  mkdirSync(tmp, { recursive: true });
  const startLoad = loadavg()[0]!.toFixed(2);
  const ceiling = await startChild({ script: 'bench/ceiling-server.mjs', readyPath: '/' }, ROOT);
  const sections: string[] = [];
  try {
    const file = join(tmp, `basket-${products}.db`);
    // --reuse: the catalogue of an earlier run (its baskets stay; new ones are filled).
    const build = !(values.reuse && existsSync(file));
    if (build) for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
    sections.push(table('SQLite', await benchEngine('sqlite', `sqlite:${file}`, ceiling, build), true));
    if (values['postgres-url']) {
      sections.push(table('PostgreSQL (info)', await benchEngine('postgres', values['postgres-url'], ceiling, !values.reuse), false));
    }
  } finally {
    await ceiling.stop();
    killAllChildren();
  }
  const markdown = [
    '## Basket: `GET /basket` and `POST /basket/add-product`',
    '',
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${cpus().length} CPUs (${cpus()[0]?.model.trim() ?? '?'}), Node ${process.version}, ${type()} ${release()}; load average ${startLoad} at the start${pinned ? '; load generator pinned to CPU 0' : ''}`,
    `- Command: \`npx tsx bench/basket.ts --products ${products}${values['postgres-url'] ? ' --postgres-url <url>' : ''}${values.before ? ` --before ${values.before}` : ''}\``,
    '',
    `${products.toLocaleString('en-US')} products (the demo generator). ${BASKETS} guest baskets of ${LINES} lines are read at random;`,
    `add-product adds 1 of a random product of ${ADD_PRODUCTS.toLocaleString('en-US')} (none stock-limited) to one of ${ADD_BASKETS.toLocaleString('en-US')} other baskets`,
    `that hold ${ADD_BASKET_LINES} lines at the start; each add is a transaction that locks the basket, reads its lines, checks the rules, writes`,
    `and prices the answer. ${load.connections} connections,`,
    `${load.warmup} s warm-up per target, then ${load.seconds} s in ${load.slice} s slices taking turns; the ratio is to the ceiling's req/s in the same run.`,
    '',
    ...sections.flatMap((section) => [section, '']),
  ].join('\n');
  writeResultsSection(join(ROOT, 'bench', 'RESULTS.md'), 'basket', markdown, ['core', 'catalogue', 'search', 'export', 'basket']);
  process.stdout.write(`${markdown}\n`);
}

main().catch((error: unknown) => {
  killAllChildren();
  console.error(error);
  process.exit(1);
});
