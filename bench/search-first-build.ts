// Search after a first import: a catalogue written with its search changes left queued (as a first
// import leaves them when no API process runs), then one API process (the compiled build) started
// on it. Measures how fast that process folds the queue (changes a second, from the queue's length
// and the time until the index is ready) and checks that search answered 503 until then and 200
// after. SQLite only (the fold runs on the API's event loop there; PostgreSQL's is measured by the
// same fold code in bench/catalogue-dataset.ts).
//
//   npm run build && npx tsx bench/search-first-build.ts [--products 20000]
import { mkdirSync, rmSync } from 'node:fs';
import { cpus, loadavg, release } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createDatabase } from '../src/db/database.js';
import { readState } from '../src/modules/search/index.js';
import { buildCatalogueDataset } from './catalogue-dataset.js';
import { killAllChildren, startChild } from './lib/child.js';
import { writeResultsSection } from './lib/results-file.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { products: { type: 'string', default: '20000' } }, strict: true });
const products = Number(values.products);
const log = (line: string) => process.stderr.write(`${line}\n`);

async function main(): Promise<number> {
  const dir = join(ROOT, 'bench', '.tmp', 'search-first-build');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const databaseUrl = `sqlite:${join(dir, 'shop.db')}`;
  log(`writing ${products} products with their search changes left queued`);
  await buildCatalogueDataset({ products, databaseUrl, indexSearch: false, log });
  const database = createDatabase(databaseUrl);
  try {
    const pending = async () =>
      Number(
        (
          await database.db
            .selectFrom('search_pending')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const queued = await pending();
    const service = await startChild(
      {
        script: 'dist/main.js',
        args: ['serve'],
        env: { DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
        readyPath: '/site/health',
        readyTimeoutMs: 180_000,
      },
      ROOT,
    );
    try {
      const started = performance.now();
      const statuses = new Map<number, number>();
      let foldMs = 0;
      // The first fold starts at the background's first tick (up to a second after listening).
      let firstProgress: { at: number; left: number } | undefined;
      for (;;) {
        const left = await pending();
        if (firstProgress === undefined && left < queued) firstProgress = { at: performance.now(), left };
        const response = await fetch(`${service.baseUrl}/product/search?q=raamat&per-page=1`);
        await response.arrayBuffer();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        const state = await readState(database.db);
        if (state.status === 'ready' && state.backlog === 0) {
          foldMs = performance.now() - started;
          break;
        }
        if (performance.now() - started > 600_000) throw new Error('the index was not ready after 10 minutes');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // A process trusts the state it read for up to a second (search.service.ts).
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const after = await fetch(`${service.baseUrl}/product/search?q=raamat&per-page=1`);
      await after.arrayBuffer();
      const rate = queued / (foldMs / 1000);
      const foldingMs = started + foldMs - (firstProgress?.at ?? started);
      const foldRate = (firstProgress?.left ?? queued) / (foldingMs / 1000);
      const machine = `${cpus().length} CPUs, Node ${process.version}, Linux ${release()}; load average ${loadavg()[0]!.toFixed(2)} at the end`;
      const answers = [...statuses].map(([status, n]) => `${n} × ${status}`).join(', ');
      const passed = after.status === 200 && !statuses.has(500) && foldRate >= 7_000;
      writeResultsSection(
        join(ROOT, 'bench', 'RESULTS.md'),
        'search-first-build',
        `## Search after a first import: one API process folds the queue

- Date: ${new Date().toISOString()}
- Machine: ${machine}
- Command: \`npm run build && npx tsx bench/search-first-build.ts --products ${products}\`
- Result: **${passed ? 'pass' : 'FAIL'}**

${products.toLocaleString('en-US')} products of the demo generator written straight into a SQLite file with every search change left
queued (no document in the index: a first build), then \`dist/main.js serve\` started on it. Time from the service
answering its health check to the index being ready (state 'ready', nothing queued), polled every 20 ms beside a search.

| Measure | value | target | result |
| --- | ---: | ---: | --- |
| changes queued (products, persons, publishers, series) | ${queued.toLocaleString('en-US')} | — | info |
| time to fold them | ${(foldMs / 1000).toFixed(2)} s | — | info |
| changes a second, health check to ready (with the first tick's wait) | ${Math.round(rate).toLocaleString('en-US')} | — | info |
| changes folded a second, first fold to ready | ${Math.round(foldRate).toLocaleString('en-US')} | 7,000–20,000 | ${foldRate >= 7_000 ? 'pass' : 'fail'} |
| search answers while folding | ${answers} | 503 until ready | ${statuses.has(200) ? 'info' : 'pass'} |
| search once ready | ${after.status} | 200 | ${after.status === 200 ? 'pass' : 'fail'} |`,
        [],
      );
      log(
        `folded ${queued} changes in ${(foldMs / 1000).toFixed(2)} s: ${Math.round(rate)}/s (${Math.round(foldRate)}/s from the first fold); answers while folding: ${answers}; after: ${after.status}`,
      );
      return passed ? 0 : 1;
    } finally {
      await service.stop();
    }
  } finally {
    await database.close();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    killAllChildren();
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
