import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from '../../src/db/schema.js';
import { importKinds } from '../../src/import-kinds.js';
import { systemClock } from '../../src/infra/clock.js';
import type { ImportSummary } from '../../src/infra/import/index.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

export interface ImportTestApp extends TestApp {
  /** Writes the lines (objects as JSON, strings as they are) and imports them as `kind`. */
  run(kind: string, lines: unknown[], options?: { force?: boolean }): Promise<ImportSummary & { reported: string[] }>;
  file(lines: unknown[]): string;
  /** Every row of the tables, to show that an import changed nothing. */
  snapshot(tables?: Array<keyof Database>): Promise<Record<string, unknown[]>>;
}

export const CATALOGUE_TABLES: Array<keyof Database> = [
  'publisher',
  'series',
  'person',
  'product',
  'product_alt_code',
  'product_store',
  'product_person',
  'product_asset',
  'product_related',
  'category',
  'category_name',
  'product_category',
  'shop',
  'shop_name',
  'shop_stock',
  'campaign',
  'campaign_name',
  'campaign_price',
  'product_list',
  'product_list_name',
  'product_list_item',
  'company_product_price',
  'quote',
];

export async function createImportTestApp(): Promise<ImportTestApp> {
  const t = await createTestApp();
  const dir = mkdtempSync(join(tmpdir(), 'storefront-import-test-'));
  let count = 0;
  const file = (lines: unknown[]) => {
    count += 1;
    const path = join(dir, `lines-${count}.ndjson`);
    writeFileSync(path, lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n') + '\n');
    return path;
  };
  return {
    ...t,
    file,
    async run(kind, lines, options = {}) {
      const reported: string[] = [];
      const summary = await importKinds[kind]!.create(
        { db: t.database.db, clock: systemClock, log: t.app.log },
        { force: options.force ?? false },
      )(file(lines), (line) => reported.push(line));
      return { ...summary, reported };
    },
    async snapshot(tables = CATALOGUE_TABLES) {
      const result: Record<string, unknown[]> = {};
      for (const table of tables) {
        const rows = await t.database.db.selectFrom(table).selectAll().execute();
        result[table] = rows.map((row) => JSON.stringify(row)).sort();
      }
      return result;
    },
    async close() {
      await t.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A valid EAN-13 (ISBN-13 with 978) from a number: the check digit computed. */
export function ean13(n: number, prefix = '978'): string {
  const body = `${prefix}${String(n).padStart(12 - prefix.length, '0')}`;
  let sum = 0;
  for (let i = 0; i < 12; i += 1) sum += Number(body[i]) * (i % 2 === 0 ? 1 : 3);
  return `${body}${(10 - (sum % 10)) % 10}`;
}

/** Publishers, persons, series, categories and shops the product tests refer to. */
export async function loadReferences(t: ImportTestApp): Promise<void> {
  const runs = [
    await t.run('publishers', [
      { code: 'PUB1', name: 'Varrak' },
      { code: 'PUB2', name: 'Tänapäev' },
    ]),
    await t.run('persons', [
      { code: 'A1', name: 'A. H. Tammsaare' },
      { code: 'A2', name: 'Kristiina Ehin' },
      { code: 'R1', name: 'Lugeja' },
    ]),
    await t.run('series', [{ code: 'S1', name: 'Eesti romaan', publisher: 'PUB1' }]),
    await t.run('categories', [
      { code: 'C-BOOKS', store: 'WEB', names: { et: 'Raamatud', en: 'Books' } },
      { code: 'C-NOVELS', store: 'WEB', parent: 'C-BOOKS', names: { et: 'Romaanid' } },
      { code: 'C2-OUTLET', store: 'WEB2', names: { et: 'Soodus' } },
    ]),
    await t.run('shops', [
      { code: 'SHOP1', names: { et: 'Tallinna kauplus' }, city: 'Tallinn', webStock: true },
      { code: 'SHOP2', names: { et: 'Tartu kauplus' }, city: 'Tartu', webStock: false },
    ]),
  ];
  for (const run of runs) if (run.errors > 0) throw new Error(run.reported.join('\n'));
}
