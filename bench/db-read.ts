// Micro-benchmark: one primary-key read through the project's db/ layer against raw better-sqlite3,
// in this process, on the same SQLite file. Stock Kysely (SqliteDialect) is shown for information.
import { performance } from 'node:perf_hooks';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { createDatabase } from '../src/db/database.js';
import { preparedQuery } from '../src/db/prepared.js';
import { migrateToLatest } from '../src/db/migrate.js';
import type { Database } from '../src/db/schema.js';
import { median } from './lib/stats.js';

export interface MicroOptions {
  rounds: number;
  roundMs: number;
  warmupMs: number;
}

export interface MicroRow {
  name: string;
  /** Median of the rounds. */
  opsPerSecond: number;
  /** Ratio to the first row (raw better-sqlite3). */
  ratio: number;
  /** Whether the row is measured against a target (db/) or only shown for information. */
  target?: number;
}

interface Variant {
  name: string;
  target?: number;
  /** Runs the read `count` times. */
  batch(count: number): unknown;
}

const BATCH = 500;
const CODE = 'WEB';

export async function benchDbRead(file: string, options: MicroOptions): Promise<MicroRow[]> {
  const handle = createDatabase(`sqlite:${file}`);
  await migrateToLatest(handle);
  const raw = new BetterSqlite3(file);
  const stock = new Kysely<Database>({ dialect: new SqliteDialect({ database: new BetterSqlite3(file) }) });
  try {
    const statement = raw.prepare('select * from "web_store" where "code" = ?');
    const read = (db: Kysely<Database>) => db.selectFrom('web_store').selectAll().where('code', '=', CODE).executeTakeFirst();
    const precompiled = handle.db.selectFrom('web_store').selectAll().where('code', '=', CODE).compile();
    const prepared = preparedQuery(handle, (db, code: string) => db.selectFrom('web_store').selectAll().where('code', '=', code));
    const variants: Variant[] = [
      {
        name: 'raw better-sqlite3 (statement prepared once, `.get()`)',
        batch: (n) => {
          for (let i = 0; i < n; i++) statement.get(CODE);
        },
      },
      {
        name: 'db/ layer, prepared query (`preparedQuery`: built and compiled once, run on the cached statement)',
        target: 0.8,
        batch: async (n) => {
          for (let i = 0; i < n; i++) await prepared(CODE);
        },
      },
      {
        name: 'db/ layer, Kysely query built and compiled per read (info)',
        batch: async (n) => {
          for (let i = 0; i < n; i++) await read(handle.db);
        },
      },
      {
        name: 'stock Kysely `SqliteDialect` (the baseline; info)',
        batch: async (n) => {
          for (let i = 0; i < n; i++) await read(stock);
        },
      },
      {
        name: 'db/ layer, query compiled once (info)',
        batch: async (n) => {
          for (let i = 0; i < n; i++) await handle.db.executeQuery(precompiled);
        },
      },
    ];
    checkSameRow(statement.get(CODE), [
      (await prepared(CODE))[0],
      await read(handle.db),
      await read(stock),
      (await handle.db.executeQuery(precompiled)).rows[0],
    ]);

    for (const variant of variants) await opsPerSecond(variant, options.warmupMs);
    const samples = variants.map((): number[] => []);
    for (let round = 0; round < options.rounds; round++) {
      // Rotate the order so no variant always runs first (or right after a GC-heavy one).
      for (let k = 0; k < variants.length; k++) {
        const index = (k + round) % variants.length;
        samples[index]?.push(await opsPerSecond(variants[index] as Variant, options.roundMs));
      }
    }
    const medians = samples.map(median);
    const rawOps = medians[0] ?? 0;
    return variants.map((variant, i) => ({
      name: variant.name,
      opsPerSecond: medians[i] ?? 0,
      ratio: (medians[i] ?? 0) / rawOps,
      target: variant.target,
    }));
  } finally {
    raw.close();
    await stock.destroy();
    await handle.close();
  }
}

async function opsPerSecond(variant: Variant, ms: number): Promise<number> {
  let done = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < ms) {
    await variant.batch(BATCH);
    done += BATCH;
    elapsed = performance.now() - start;
  }
  return (done / elapsed) * 1000;
}

function checkSameRow(expected: unknown, actual: unknown[]): void {
  const want = JSON.stringify(expected);
  if (expected === undefined || actual.some((row) => JSON.stringify(row) !== want)) {
    throw new Error(`db-read: the variants read different rows: ${want} vs ${JSON.stringify(actual)}`);
  }
}
