// `GET /main-page` (with its product blocks) and `GET /content-page/{slug}` as a guest, beside the
// raw node:http ceiling in the same run. Targets (issue 16): the main page at 25 % or more of the
// ceiling's requests/s, a content page at 40 % or more; on SQLite, with the compiled build (dist/)
// pinned to one core (CPU 1; the load generator on CPU 0).
//
//   npm run build && npx tsx bench/content.ts [--products 20000] [--seconds 10]
//
// The content is the demo's (src/demo/content.ts): a main page with a banner, two product
// components, a product list of 8 and a campaign list; three content pages. Guests send no
// If-None-Match, so every request builds its answer (a CDN in front would take most of them).
// Prints its markdown section; the lead copies it into bench/RESULTS.md.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { cpus, loadavg, release, type } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon, { type Result } from 'autocannon';
import { createDatabase } from '../src/db/database.js';
import { writeContentDemo } from '../src/demo/content.js';
import { buildCatalogueDataset } from './catalogue-dataset.js';
import { killAllChildren, pinLoadGenerator, startChild, type RunningChild } from './lib/child.js';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));

const { values } = parseArgs({
  options: {
    products: { type: 'string', default: '20000' },
    seconds: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
  },
});
const products = Number(values.products);
const log = (line: string) => process.stderr.write(`${line}\n`);

async function seedContent(databaseUrl: string): Promise<void> {
  const database = createDatabase(databaseUrl);
  try {
    await database.db.transaction().execute((trx) => writeContentDemo(trx, Date.now()));
  } finally {
    await database.close();
  }
}

const run = (child: RunningChild, duration: number, path: string) =>
  autocannon({
    url: child.baseUrl,
    duration,
    connections: Number(values.connections),
    pipelining: 1,
    timeout: 10,
    requests: [{ method: 'GET', path }],
  });

/** Two alternating halves of each, so that the machine's load falls on all alike. */
function merge(a: Result, b: Result): Result {
  return {
    ...a,
    duration: a.duration + b.duration,
    requests: { ...a.requests, total: a.requests.total + b.requests.total },
    latency: { ...a.latency, p99: Math.max(a.latency.p99, b.latency.p99) },
    non2xx: a.non2xx + b.non2xx,
    errors: a.errors + b.errors + a.timeouts + b.timeouts,
  } as Result;
}

async function main(): Promise<void> {
  const pinned = pinLoadGenerator();
  const tmp = join(ROOT, 'bench', '.tmp');
  mkdirSync(tmp, { recursive: true });
  const uptime = execFileSync('uptime', { encoding: 'utf8' }).trim();
  const startLoad = loadavg()[0]!.toFixed(2);
  const file = join(tmp, `content-${products}.db`);
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  const databaseUrl = `sqlite:${file}`;
  log(`generating ${products} products`);
  await buildCatalogueDataset({ products, databaseUrl, log, indexSearch: false });
  await seedContent(databaseUrl);
  const ceiling = await startChild({ script: 'bench/ceiling-server.mjs', readyPath: '/' }, ROOT);
  const service = await startChild(
    {
      script: 'dist/main.js',
      args: ['serve'],
      env: { DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', BASE_PATH: '' },
      readyPath: '/site/health',
    },
    ROOT,
  );
  const paths = { main: '/main-page', page: '/content-page/meist' };
  let results: { ceiling: Result; main: Result; page: Result; cards: number };
  try {
    const probe = await fetch(`${service.baseUrl}${paths.main}`);
    const blocks = ((await probe.json()) as { blocks?: Array<{ products?: unknown[] }> }).blocks ?? [];
    const cards = blocks.reduce((sum, block) => sum + (block.products?.length ?? 0), 0);
    if (probe.status !== 200 || cards === 0) throw new Error(`probe: ${probe.status}, ${cards} product cards on the main page`);
    if ((await fetch(`${service.baseUrl}${paths.page}`)).status !== 200) throw new Error('probe: the content page is missing');
    const warmup = Number(values.warmup);
    await run(ceiling, warmup, '/');
    await run(service, warmup, paths.main);
    await run(service, warmup, paths.page);
    const half = Number(values.seconds) / 2;
    const c1 = await run(ceiling, half, '/');
    const m1 = await run(service, half, paths.main);
    const p1 = await run(service, half, paths.page);
    const c2 = await run(ceiling, half, '/');
    const m2 = await run(service, half, paths.main);
    const p2 = await run(service, half, paths.page);
    results = { ceiling: merge(c1, c2), main: merge(m1, m2), page: merge(p1, p2), cards };
  } finally {
    await service.stop();
    await ceiling.stop();
    killAllChildren();
  }
  const rps = (r: Result) => r.requests.total / r.duration;
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  const row = (label: string, r: Result, target: number) => {
    const ratio = rps(r) / rps(results.ceiling);
    const pass = ratio >= target && r.non2xx === 0 && r.errors === 0;
    return `| ${label} | ${fmt(rps(r))} | ${r.latency.p99} | ${fmt(r.requests.total)} | ${r.non2xx} | ${r.errors} | ${(ratio * 100).toFixed(1)} % | ≥ ${target * 100} % | ${pass ? 'pass' : 'FAIL'} |`;
  };
  const markdown = [
    '## Content: `GET /main-page` and `GET /content-page/{slug}` as a guest',
    '',
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${cpus().length} CPUs (${cpus()[0]?.model.trim() ?? '?'}), Node ${process.version}, ${type()} ${release()}; load average ${startLoad} at the start${pinned ? '; load generator pinned to CPU 0, service and ceiling to CPU 1' : ''}`,
    `- \`uptime\` at the start: \`${uptime}\``,
    `- Command: \`npm run build && npx tsx bench/content.ts --products ${products} --seconds ${values.seconds}\``,
    '',
    `${products.toLocaleString('en-US')} products (the demo generator) and the demo content, SQLite, compiled build. The main page has`,
    `${results.cards} product cards in its blocks (newest, a list of 8, best sellers) besides a banner and a campaign list. Guests without`,
    `If-None-Match. ${values.connections} connections, ${values.warmup} s warm-up each, then ${values.seconds} s each in two alternating halves.`,
    '',
    '| Scenario | req/s | p99 (ms) | requests | non-2xx | errors | ratio to ceiling | target | result |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    `| ceiling: raw \`node:http\`, small JSON | ${fmt(rps(results.ceiling))} | ${results.ceiling.latency.p99} | ${fmt(results.ceiling.requests.total)} | ${results.ceiling.non2xx} | ${results.ceiling.errors} | 100 % | — | reference |`,
    row('`GET /main-page`, product blocks resolved', results.main, 0.25),
    row('`GET /content-page/meist`', results.page, 0.4),
    '',
  ].join('\n');
  process.stdout.write(`${markdown}\n`);
}

main().catch((error: unknown) => {
  killAllChildren();
  console.error(error);
  process.exit(1);
});
