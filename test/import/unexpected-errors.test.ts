import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/db/database.js';
import type { Database } from '../../src/db/schema.js';
import { createLoggedBackOfficeApp } from '../helpers/back-office.js';
import { cliScratch, jsonLogLines, runCli, type CliScratch } from '../helpers/cli.js';
import type { LogCapture } from '../helpers/log-capture.js';
import { type TestApp } from '../helpers/test-app.js';

// A line that fails for a reason the import does not check (here a unique index the test adds, as
// a database may refuse what no rule of the import foresaw) is reported in words and by an id, never
// with the database's message (SQL, a constraint's or a table's name); the log has the error in
// full under that id, with the line and the kind. The line's own rules keep their words, and the
// other lines are applied.

const UNEXPECTED = /^could not be saved \(unexpected error, logged as ([0-9a-f]{12})\)$/;
/** What a database's refusal of a duplicate says, on either engine. */
const DATABASE_WORDS = /unique|constraint|duplicate|index|publisher\.|product\.|sql/i;

/** An index the schema does not have: names must differ, so a second one fails in the database. */
const uniqueNames = (db: Kysely<Database>, table: 'publisher' | 'product') =>
  sql.raw(`create unique index test_${table}_name_uq on ${table} (name)`).execute(db);

function idOf(message: string): string {
  const match = UNEXPECTED.exec(message);
  expect(match, message).not.toBeNull();
  return match![1]!;
}

describe('an unexpected error on an import line, over HTTP', () => {
  let t: TestApp;
  let key: string;
  let logs: LogCapture;
  beforeAll(async () => {
    ({ t, key, logs } = await createLoggedBackOfficeApp());
    await uniqueNames(t.database.db, 'publisher');
    await uniqueNames(t.database.db, 'product');
  });
  afterAll(() => t.close());

  const post = async (kind: string, lines: unknown[]) => {
    const response = await t.app.inject({
      method: 'POST',
      url: `/admin/import/${kind}?force=true`,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-ndjson' },
      payload: lines.map((line) => JSON.stringify(line)).join('\n'),
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as { outcomes: Record<string, number>; errors: Array<{ line: number; message: string }>; errorCount: number };
  };
  const logged = (errorId: string) => logs.lines().filter((line) => line.errorId === errorId);

  it('is reported by an id without the database message, logged in full, and the other lines are applied', async () => {
    expect((await post('publishers', [{ code: 'PUB-1', name: 'Varrak' }])).errors).toEqual([]);
    const result = await post('publishers', [{ code: 'PUB-2', name: 'Varrak' }, { code: 'PUB-3', name: 'Tänapäev' }, { code: 'PUB-4' }]);
    expect(result.outcomes).toEqual({ created: 1 });
    expect(result.errors).toEqual([
      { line: 1, message: expect.stringMatching(UNEXPECTED) },
      { line: 3, message: '/name: is required' },
    ]);
    expect(result.errors[0]!.message).not.toMatch(DATABASE_WORDS);
    const errorId = idOf(result.errors[0]!.message);
    expect(logged(errorId)).toEqual([
      expect.objectContaining({
        level: 50,
        importKind: 'publishers',
        line: 1,
        errorId,
        err: expect.objectContaining({ message: expect.stringMatching(/unique|duplicate/i) }),
      }),
    ]);
    const stored = await t.database.db.selectFrom('publisher').select(['code', 'name']).orderBy('code').execute();
    expect(stored).toEqual([
      { code: 'PUB-1', name: 'Varrak' },
      { code: 'PUB-3', name: 'Tänapäev' },
    ]);
  });

  it("keeps the words of a rule checked while the line is written (a delivery method's unknown pickup shop)", async () => {
    const pickup = {
      code: 'PICKUP',
      kind: 'SHOP_PICKUP',
      names: { et: 'Poest' },
      prices: [{ store: 'WEB', price: 0 }],
      daysMin: 0,
      daysMax: 1,
    };
    const result = await post('delivery-methods', [{ ...pickup, shops: ['NO-SUCH-SHOP'] }]);
    expect(result.errors).toEqual([{ line: 1, message: '/shops: there is no shop "NO-SUCH-SHOP"' }]);
  });

  it('is reported alike for a line the product feed applies after the file (a BOOK retyped once its e-book is relinked)', async () => {
    const product = (code: string, type: string, extra: Record<string, unknown> = {}) => ({
      code,
      type,
      name: `Toode ${code}`,
      stores: ['WEB'],
      shopPrice: 9.9,
      vatRate: 9,
      availability: 'AVAILABLE',
      ...extra,
    });
    expect((await post('products', [product('BOOK-1', 'BOOK'), product('EBOOK-1', 'EBOOK', { physicalBook: 'BOOK-1' })])).errors).toEqual(
      [],
    );
    // The BOOK's line waits for its e-book's, later in the file; applied then, its name is taken.
    const result = await post('products', [product('BOOK-1', 'USED_BOOK', { name: 'Toode EBOOK-1' }), product('EBOOK-1', 'EBOOK')]);
    expect(result.outcomes).toEqual({ updated: 1 });
    expect(result.errors).toEqual([{ line: 1, message: expect.stringMatching(UNEXPECTED) }]);
    expect(result.errors[0]!.message).not.toMatch(DATABASE_WORDS);
    expect(logged(idOf(result.errors[0]!.message))).toEqual([expect.objectContaining({ importKind: 'products', line: 1 })]);
    const stored = await t.database.db.selectFrom('product').select(['code', 'type', 'name', 'physical_book_id']).orderBy('code').execute();
    expect(stored).toEqual([
      { code: 'BOOK-1', type: 'BOOK', name: 'Toode BOOK-1', physical_book_id: null },
      { code: 'EBOOK-1', type: 'EBOOK', name: 'Toode EBOOK-1', physical_book_id: null },
    ]);
  });
});

describe('an unexpected error on an import line, on the command line', () => {
  let cli: CliScratch;
  beforeAll(async () => {
    cli = await cliScratch('storefront-import-errors-');
    const database = createDatabase(cli.env.DATABASE_URL!);
    await uniqueNames(database.db, 'publisher');
    await database.close();
  });
  afterAll(() => cli.remove());

  it('reports the line by an id and logs the error under it on stderr', async () => {
    const file = cli.ndjsonFile('publishers.ndjson', [
      { code: 'PUB-1', name: 'Varrak' },
      { code: 'PUB-2', name: 'Varrak' },
    ]);
    const imported = await runCli(['import', 'publishers', file], cli.env);
    expect(imported.code).toBe(1);
    expect(imported.stdout).toContain('2 lines: {"created":1}, 1 bad');
    const stderr = imported.stderr.split('\n');
    const reported = stderr.find((line) => line.startsWith('line 2: '));
    expect(reported).toMatch(/^line 2: could not be saved \(unexpected error, logged as [0-9a-f]{12}\)$/);
    const errorId = idOf(reported!.slice('line 2: '.length));
    expect(jsonLogLines(imported.stderr)).toEqual([
      expect.objectContaining({
        importKind: 'publishers',
        line: 2,
        errorId,
        err: expect.objectContaining({ message: expect.stringMatching(/unique|duplicate/i) }),
      }),
    ]);
  });
});
