import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/db/database.js';
import type { Database } from '../../src/db/schema.js';
import { addSupplier } from '../../src/modules/integrations/suppliers.service.js';
import { createLoggedBackOfficeApp } from '../helpers/back-office.js';
import { cliScratch, jsonLogLines, runCli, type CliScratch } from '../helpers/cli.js';
import type { LogCapture } from '../helpers/log-capture.js';
import { type TestApp } from '../helpers/test-app.js';
import { book, ndjson, postFeed } from '../integrations/helpers.js';

// The product feed's check before its first line (how many active products the file would
// deactivate) reads the catalogue; a read that fails for a reason no rule foresaw (here a column the
// test renames, so the database refuses the query) stops the import before anything is written, and
// is reported as a failed step is: in words and by the id the error is logged under, never with the
// database's text, to the back office and to a supplier alike. The answer is still the import's
// summary, not a 500, and the command line exits 1 with it, not with the raw error.

const CHECK_NOT_DONE =
  /^before the first line: the check of how many active products the file would deactivate could not be completed \(unexpected error, logged as ([0-9a-f]{12})\)$/;
/** What the database's refusal says, and the words of SQL: none of it may reach the report. */
const DATABASE_WORDS = /supplier_id|column|product\.|sql|select/i;
const STEP = 'the check of how many active products the file would deactivate';

/** The column the check reads renamed away: the database refuses the check's query. */
const refuseTheCheck = (db: Kysely<Database>) => sql`alter table product rename column supplier_id to test_renamed_supplier`.execute(db);

function idOf(message: string): string {
  const match = CHECK_NOT_DONE.exec(message);
  expect(match, message).not.toBeNull();
  return match![1]!;
}

const productCodes = (db: Kysely<Database>) =>
  db
    .selectFrom('product')
    .select('code')
    .orderBy('code')
    .execute()
    .then((rows) => rows.map((row) => row.code));

interface ImportAnswer {
  lines: number;
  outcomes: Record<string, number>;
  errors: Array<{ line: number; message: string }>;
  errorCount: number;
}

describe("the product feed's check before its first line, over HTTP", () => {
  let t: TestApp;
  let key: string;
  let logs: LogCapture;
  let secret: string;
  beforeAll(async () => {
    ({ t, key, logs } = await createLoggedBackOfficeApp());
    secret = await addSupplier(t.database.db, 'ACME', 'Acme Books', Date.now());
    expect((await post([book('P-1')])).json()).toMatchObject({ errorCount: 0 });
    await refuseTheCheck(t.database.db);
  });
  afterAll(() => t.close());

  const post = (lines: unknown[]) =>
    t.app.inject({
      method: 'POST',
      url: '/admin/import/products',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-ndjson' },
      payload: ndjson(lines),
    });
  const logged = (errorId: string) => logs.lines().filter((line) => line.errorId === errorId);
  /** The answer of an import the failed check stopped: nothing read, the step at line 0, no database words. */
  function stoppedAnswer(response: { statusCode: number; body: string; json(): unknown }): ImportAnswer {
    expect(response.statusCode, response.body).toBe(200);
    const result = response.json() as ImportAnswer;
    expect(result).toEqual({
      lines: 0,
      outcomes: {},
      errors: [{ line: 0, message: expect.stringMatching(CHECK_NOT_DONE) }],
      errorCount: 1,
    });
    expect(response.body).not.toMatch(DATABASE_WORDS);
    return result;
  }

  it('stops the import by an id, logs the error under it, and writes nothing', async () => {
    const result = stoppedAnswer(await post([book('P-1', { name: 'Uus nimi' }), book('P-2')]));
    expect(logged(idOf(result.errors[0]!.message))).toEqual([
      expect.objectContaining({
        level: 50,
        importKind: 'products',
        step: STEP,
        err: expect.objectContaining({ message: expect.stringMatching(/supplier_id/) }),
      }),
    ]);
    expect(await productCodes(t.database.db)).toEqual(['P-1']);
    const name = await t.database.db.selectFrom('product').select('name').where('code', '=', 'P-1').executeTakeFirstOrThrow();
    expect(name.name).not.toBe('Uus nimi');
  });

  it("tells a supplier the same by an id only, in the feed's answer", async () => {
    const result = stoppedAnswer(await postFeed(t, 'ACME', 'products', ndjson([book('S-1')]), secret));
    expect(logged(idOf(result.errors[0]!.message))).toEqual([expect.objectContaining({ step: STEP })]);
    expect(await productCodes(t.database.db)).toEqual(['P-1']);
  });
});

describe("the product feed's check before its first line, on the command line", () => {
  let cli: CliScratch;
  beforeAll(async () => {
    cli = await cliScratch('storefront-import-start-');
    expect((await runCli(['import', 'products', cli.ndjsonFile('first.ndjson', [book('P-1')])], cli.env)).code).toBe(0);
    const database = createDatabase(cli.env.DATABASE_URL!);
    await refuseTheCheck(database.db);
    await database.close();
  });
  afterAll(() => cli.remove());

  it('reports the step by an id, logs it on stderr, says nothing was imported and exits 1', async () => {
    const imported = await runCli(['import', 'products', cli.ndjsonFile('second.ndjson', [book('P-1'), book('P-2')])], cli.env);
    expect(imported.code).toBe(1);
    expect(imported.stdout).toContain('0 lines: {}, 0 bad, stopped before the first line');
    const stderr = imported.stderr.split('\n');
    const stepLine = stderr.find((line) => line.startsWith('before the first line: '));
    const stepId = idOf(stepLine!);
    expect(imported.stderr).toContain(
      'No line was imported. Fix the cause of what failed before the first line (in the log under its id) and import the file again.',
    );
    expect(imported.stderr).not.toMatch(/^error: /m);
    expect(jsonLogLines(imported.stderr)).toEqual([expect.objectContaining({ importKind: 'products', step: STEP, errorId: stepId })]);
    expect(stepLine).not.toMatch(DATABASE_WORDS);
    const database = createDatabase(cli.env.DATABASE_URL!);
    try {
      expect(await productCodes(database.db)).toEqual(['P-1']);
    } finally {
      await database.close();
    }
  });
});
