// A large catalogue for the browse and search benchmarks: the demo bookstore's generator at any
// size (categories with thousands of products, authors with hundreds, orders and clicks to match).
//
//   npx tsx bench/catalogue-dataset.ts --products 200000 [--database-url sqlite:/path.db] [--seed 1] [--no-search-index]
//
// After the rows it folds the search index (as the API would in the background), so searches
// answer at once; --no-search-index leaves that to the API.
//
// Without --database-url it writes bench/.tmp/catalogue-<products>.db, replacing an older one.
// The database must have an empty catalogue; it is migrated first. The benchmark runner calls
// buildCatalogueDataset() itself.
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { createDatabase, type DatabaseHandle } from '../src/db/database.js';
import { DEMO_PASSWORD } from '../src/demo/accounts.js';
import { DEMO_SEED, writeDatasetInBatches, type Progress } from '../src/demo/catalogue-generator.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { hashPassword } from '../src/infra/passwords.js';
import { rebuildCategoryListing } from '../src/modules/catalogue/index.js';
import { createEngine, foldBatch } from '../src/modules/search/index.js';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));

export interface CatalogueDatasetOptions {
  products: number;
  /** An open database; otherwise `databaseUrl` is opened (and closed again). */
  database?: DatabaseHandle;
  databaseUrl?: string;
  seed?: number;
  now?: number;
  /** Also fold the search index now (default), so searches answer at once instead of 503 while it builds. */
  indexSearch?: boolean;
  /** Progress lines; silent without. */
  log?: (line: string) => void;
}

export interface CatalogueDatasetResult {
  products: number;
  rows: number;
  seconds: number;
  rowsPerSecond: number;
  /** Time spent folding the search index (0 when skipped). */
  indexSeconds: number;
}

/** Builds the dataset into a migrated database with an empty catalogue. */
export async function buildCatalogueDataset(options: CatalogueDatasetOptions): Promise<CatalogueDatasetResult> {
  if (!Number.isInteger(options.products) || options.products < 1)
    throw new Error(`products must be a positive whole number, got ${options.products}`);
  const database = options.database ?? createDatabase(options.databaseUrl ?? defaultUrl(options.products));
  const log = options.log ?? (() => {});
  try {
    await migrateToLatest(database);
    const existing = await database.db.selectFrom('product').select('id').limit(1).executeTakeFirst();
    if (existing !== undefined) throw new Error('the database already has products; the dataset goes into an empty catalogue');
    const passwordHash = await hashPassword(DEMO_PASSWORD);
    // A bulk load of a throwaway database: a crash loses the file anyway, so skip the fsyncs.
    database.sqlite?.pragma('synchronous = OFF');
    database.sqlite?.pragma('cache_size = -262144');
    const started = performance.now();
    let rows = 0;
    let lastLog = started;
    let lastPhase = '';
    const onProgress = (progress: Progress) => {
      rows += progress.rows;
      const now = performance.now();
      if (now - lastLog > 2000 || progress.phase !== lastPhase) {
        lastLog = now;
        lastPhase = progress.phase;
        log(`  ${progress.phase}: ${progress.products} products, ${rows} rows, ${((now - started) / 1000).toFixed(1)} s`);
      }
    };
    await writeDatasetInBatches(
      database,
      { products: options.products, now: options.now ?? Date.now(), passwordHash, seed: options.seed ?? DEMO_SEED },
      onProgress,
    );
    const seconds = (performance.now() - started) / 1000;
    const indexSeconds = options.indexSearch === false ? 0 : await foldSearchIndex(database, log);
    // The category lists' kept order (the import would rebuild it after the categories).
    const listingStarted = performance.now();
    await rebuildCategoryListing(database.db);
    log(`  category listing: built in ${((performance.now() - listingStarted) / 1000).toFixed(1)} s`);
    // Fresh statistics, so the query planner sees the real table sizes (the service keeps sqlite_stat1
    // and drops the STAT4 samples when it opens the file: src/db/sqlite-statistics.ts).
    await sql`analyze`.execute(database.db);
    database.sqlite?.pragma('synchronous = NORMAL');
    const products = Number(
      (
        await database.db
          .selectFrom('product')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
    return { products, rows, seconds, rowsPerSecond: rows / seconds, indexSeconds };
  } finally {
    if (options.database === undefined) await database.close();
  }
}

/** Folds everything the inserts queued for the search index (what the API would do in the background). */
async function foldSearchIndex(database: DatabaseHandle, log: (line: string) => void): Promise<number> {
  const started = performance.now();
  const engine = createEngine(database);
  let folded = 0;
  let lastLog = started;
  for (let taken = 1; taken > 0; folded += taken) {
    taken = await foldBatch(database, engine, 5_000, Date.now());
    if (performance.now() - lastLog > 2000) {
      lastLog = performance.now();
      log(`  search index: ${folded + taken} entries folded, ${((lastLog - started) / 1000).toFixed(1)} s`);
    }
  }
  const seconds = (performance.now() - started) / 1000;
  log(`  search index: ${folded} entries in ${seconds.toFixed(1)} s`);
  return seconds;
}

function defaultUrl(products: number): string {
  return `sqlite:${join(BENCH_DIR, '.tmp', `catalogue-${products}.db`)}`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      products: { type: 'string', default: '200000' },
      'database-url': { type: 'string' },
      seed: { type: 'string' },
      'no-search-index': { type: 'boolean', default: false },
    },
    strict: true,
  });
  const products = Number(values.products);
  if (!Number.isInteger(products) || products < 1) throw new Error(`--products must be a positive whole number, got "${values.products}"`);
  const seed = values.seed === undefined ? undefined : Number(values.seed);
  if (seed !== undefined && !Number.isInteger(seed)) throw new Error(`--seed must be a whole number, got "${values.seed}"`);
  const databaseUrl = values['database-url'] ?? defaultUrl(products);
  if (values['database-url'] === undefined) {
    const file = databaseUrl.slice('sqlite:'.length);
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  }
  const log = (line: string) => process.stdout.write(`${line}\n`);
  log(`catalogue dataset: ${products} products into ${databaseUrl}`);
  const result = await buildCatalogueDataset({ products, databaseUrl, seed, indexSearch: !values['no-search-index'], log });
  log(
    `done: ${result.products} products, ${result.rows} rows in ${result.seconds.toFixed(1)} s (${Math.round(result.rowsPerSecond)} rows/s)` +
      (result.indexSeconds > 0 ? `; search index folded in ${result.indexSeconds.toFixed(1)} s` : ''),
  );
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
