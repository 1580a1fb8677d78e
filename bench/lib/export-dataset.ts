// The data-export benchmark's dataset: N sales-history rows (with 1 to 4 order lines each) and N
// session actions, bulk-inserted into a fresh SQLite file through raw better-sqlite3 in large
// transactions (hundreds of thousands of rows a second), after the project's own migrations.
import { performance } from 'node:perf_hooks';
import { createDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { addExportUser } from '../../src/modules/data-export/export-user.service.js';

export interface ExportDataset {
  file: string;
  salesRows: number;
  salesLines: number;
  sessionActions: number;
  user: { name: string; password: string };
  seconds: number;
}

const CITIES = ['Tallinn', 'Tartu', 'Pärnu', 'Narva', 'Viljandi', 'Rakvere', 'Kuressaare', 'Haapsalu'];
const DELIVERY = ['COURIER', 'PARCEL_MACHINE', 'SHOP_PICKUP', 'POST'];
const SHOPS = ['TLN-VIRU', 'TLN-KRISTIINE', 'TRT-KAUBAMAJA', 'PRN-KESKUS', 'NRV-FAMA'];
const ACTIONS = ['VIEW', 'VIEW', 'VIEW', 'ADD_TO_WISHLIST', 'ADD_TO_BASKET'] as const;
const START = Date.UTC(2024, 0, 1);
const CHUNK = 100_000;

/** A small deterministic generator, so every run measures the same data. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export async function createExportDataset(file: string, rows: number, log: (line: string) => void): Promise<ExportDataset> {
  const started = performance.now();
  const handle = createDatabase(`sqlite:${file}`);
  try {
    await migrateToLatest(handle);
    const user = { name: 'bench-partner', password: (await addExportUser(handle.db, 'bench-partner', [], Date.now())).password };
    const sqlite = handle.sqlite!;
    sqlite.pragma('synchronous = OFF');
    const next = random(42);
    const pick = <T>(values: readonly T[]) => values[Math.floor(next() * values.length)]!;

    const sale = sqlite.prepare(
      'insert into sales_history (id, order_code, client_code, client_type, source_type, city, session_id, delivery_method, shop_code, created_at, created_nav) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const line = sqlite.prepare('insert into sales_history_item (sales_history_id, position, product_code) values (?, ?, ?)');
    let lines = 0;
    const insertSales = sqlite.transaction((from: number, to: number) => {
      for (let i = from; i < to; i += 1) {
        const id = i + 1;
        const online = next() < 0.7;
        // Orders arrive in batches from the back office: often several in the same millisecond.
        const createdAt = START + Math.floor(i / 3) * 45_000;
        const createdNav = next() < 0.95 ? createdAt - Math.floor(next() * 72 * 3_600_000) : null;
        sale.run(
          id,
          `${online && next() < 0.2 ? 'WN' : 'WT'}${String(id).padStart(9, '0')}`,
          `W${100_000 + Math.floor(next() * 200_000)}`,
          next() < 0.9 ? 'PYSIKLIENT' : 'ETTEVOTE',
          online ? 'ONLINE' : 'OFFLINE',
          pick(CITIES),
          online ? `sess-${Math.floor(next() * 1e9).toString(36)}` : null,
          online ? pick(DELIVERY) : 'SHOP',
          online ? null : pick(SHOPS),
          createdAt,
          createdNav,
        );
        const count = 1 + Math.floor(next() * 4);
        for (let position = 0; position < count; position += 1)
          line.run(id, position, `P${String(Math.floor(next() * 20_000)).padStart(6, '0')}`);
        lines += count;
      }
    });
    for (let from = 0; from < rows; from += CHUNK) {
      insertSales(from, Math.min(rows, from + CHUNK));
      log(`  sales history: ${Math.min(rows, from + CHUNK).toLocaleString('en-US')} rows`);
    }

    const action = sqlite.prepare(
      'insert into session_action (id, session_id, store_code, product_code, client_code, action_type, created_at) values (?, ?, ?, ?, ?, ?, ?)',
    );
    const insertActions = sqlite.transaction((from: number, to: number) => {
      for (let i = from; i < to; i += 1) {
        action.run(
          i + 1,
          `sess-${Math.floor(i / 12).toString(36)}`,
          next() < 0.8 ? 'WEB' : 'WEB2',
          `P${String(Math.floor(next() * 20_000)).padStart(6, '0')}`,
          next() < 0.4 ? null : `W${100_000 + Math.floor(next() * 200_000)}`,
          pick(ACTIONS),
          START + i * 15_000 + Math.floor(next() * 1000),
        );
      }
    });
    for (let from = 0; from < rows; from += CHUNK) {
      insertActions(from, Math.min(rows, from + CHUNK));
      log(`  session actions: ${Math.min(rows, from + CHUNK).toLocaleString('en-US')} rows`);
    }
    sqlite.pragma('synchronous = NORMAL');
    sqlite.exec('analyze');
    sqlite.pragma('wal_checkpoint(TRUNCATE)');
    return { file, salesRows: rows, salesLines: lines, sessionActions: rows, user, seconds: (performance.now() - started) / 1000 };
  } finally {
    await handle.close();
  }
}
