import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import type { Database } from '../../src/db/schema.js';
import { cliScratch, jsonLogLines, runCli, type CliScratch } from '../helpers/cli.js';
import { engine } from '../helpers/test-app.js';

// `import` folds the search changes it queued before it exits (import-folds.test.ts). A fold that
// fails for a reason no rule foresaw (here a trigger the test adds, as a database may refuse what
// the fold did not expect) leaves the lines imported and their changes queued; the command says so
// in words and by the id the error is logged under on stderr, never with the database's text, says
// what the operator may do, and exits 1.

const FOLD_NOT_DONE =
  /^after the import: the fold of its changes into the search index could not be completed \(unexpected error, logged as ([0-9a-f]{12})\)$/;
/** What the trigger's refusal says, and the words of SQL: none of it may reach the report. */
const DATABASE_WORDS = /refused by test|trigger|search_pending|sql|delete/i;

/** A trigger that refuses to take a change off the search index's queue, as a database may. */
async function refuseFolding(db: Kysely<Database>): Promise<void> {
  if (engine === 'postgres') {
    await sql`create function test_refuse() returns trigger language plpgsql as $$ begin raise exception 'refused by test on %', tg_table_name; end $$`.execute(
      db,
    );
    await sql`create trigger test_refuse_fold before delete on search_pending for each row execute function test_refuse()`.execute(db);
  } else {
    await sql`create trigger test_refuse_fold before delete on search_pending begin select raise(abort, 'refused by test on search_pending'); end`.execute(
      db,
    );
  }
}

const queued = (db: Kysely<Database>) =>
  db
    .selectFrom('search_pending')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow()
    .then((row) => Number(row.n));

describe('a failed search fold after an import, on the command line', () => {
  let cli: CliScratch;
  let database: DatabaseHandle;
  beforeAll(async () => {
    cli = await cliScratch('storefront-import-fold-');
    database = createDatabase(cli.env.DATABASE_URL!);
    await refuseFolding(database.db);
  });
  afterAll(async () => {
    await database.close();
    await cli.remove();
  });

  it('says the lines were imported and their changes wait, logs the error under an id on stderr and exits 1', async () => {
    const file = cli.ndjsonFile('publishers.ndjson', [
      { code: 'PUB-1', name: 'Varrak' },
      { code: 'PUB-2', name: 'Tänapäev' },
    ]);
    const imported = await runCli(['import', 'publishers', file], cli.env);
    expect(imported.code).toBe(1);
    expect(imported.stdout).toContain('2 lines: {"created":2}, 0 bad');
    const stderr = imported.stderr.split('\n');
    const foldLine = stderr.find((line) => line.startsWith('after the import: '));
    const match = FOLD_NOT_DONE.exec(foldLine ?? '');
    expect(match, imported.stderr).not.toBeNull();
    expect(imported.stderr).toContain(
      'The lines were imported; their changes wait in the search index\'s queue ("search status" shows how many), and searches ' +
        'may not show them (after a first import they answer 503) until a running API process folds them in the background. ' +
        'If they stay queued, fix the cause (in the log under its id) and run "search reindex".',
    );
    expect(imported.stderr).not.toMatch(/^error: /m);
    expect(jsonLogLines(imported.stderr)).toEqual([
      expect.objectContaining({
        level: 50,
        importKind: 'publishers',
        step: 'the fold of its changes into the search index',
        errorId: match![1],
        err: expect.objectContaining({ message: expect.stringMatching(/refused by test/) }),
      }),
    ]);
    expect(foldLine).not.toMatch(DATABASE_WORDS);
    const stored = await database.db.selectFrom('publisher').select('code').orderBy('code').execute();
    expect(stored.map((row) => row.code)).toEqual(['PUB-1', 'PUB-2']);
    expect(await queued(database.db)).toBeGreaterThanOrEqual(2);
  });
});
