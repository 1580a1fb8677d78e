import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/db/database.js';
import type { Database } from '../../src/db/schema.js';
import { UNEXPECTED_LINES_LOGGED } from '../../src/infra/import/line-failure.js';
import { createLoggedBackOfficeApp } from '../helpers/back-office.js';
import { cliScratch, jsonLogLines, runCliProcess, type CliScratch } from '../helpers/cli.js';
import type { LogCapture } from '../helpers/log-capture.js';
import { engine, type TestApp } from '../helpers/test-app.js';

// An import whose every line meets an error of the database that no rule of the import foresees (here
// a trigger the test adds, refusing every new publisher) logged one error with its stack per line:
// 100,000 stack traces for a file of 100,000 lines, one cause. A run logs the first
// UNEXPECTED_LINES_LOGGED in full, each under the id its line names, and then one line counting the
// rest, whose id the lines past them name; every line is still counted bad in the summary.

const LOGGED = /^could not be saved \(unexpected error, logged as ([0-9a-f]{12})\)$/;
const COUNTED = new RegExp(
  `^could not be saved \\(unexpected error, counted as ([0-9a-f]{12}): the first ${UNEXPECTED_LINES_LOGGED} are logged in full\\)$`,
);
const LINE_LOGGED = 'an import line failed unexpectedly';
const TRIGGER_MESSAGE = 'test trigger: no new publishers';

/** A trigger that refuses every new publisher, on either engine: a refusal no rule of the import knows of. */
async function refuseNewPublishers(db: Kysely<Database>): Promise<void> {
  if (engine === 'sqlite') {
    await sql
      .raw(`create trigger test_refuse_publisher before insert on publisher begin select raise(abort, '${TRIGGER_MESSAGE}'); end`)
      .execute(db);
    return;
  }
  await sql
    .raw(
      `create function test_refuse_publisher() returns trigger language plpgsql as $$ begin raise exception '${TRIGGER_MESSAGE}'; end $$`,
    )
    .execute(db);
  await sql
    .raw('create trigger test_refuse_publisher before insert on publisher for each row execute function test_refuse_publisher()')
    .execute(db);
}

const publishers = (count: number) => Array.from({ length: count }, (_, i) => ({ code: `PUB-${i + 1}`, name: `Kirjastus ${i + 1}` }));
const match = (pattern: RegExp, message: string) => {
  const found = pattern.exec(message);
  expect(found, message).not.toBeNull();
  return found![1]!;
};
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/**
 * What a run whose lines `from`..`to` all failed unexpectedly left in its log (`logLines`) and named
 * in its line messages (`messages`, by line number): the first UNEXPECTED_LINES_LOGGED logged in
 * full under their own ids, the rest counted on one line under the id they name.
 */
function expectCappedLog(logLines: Array<Record<string, unknown>>, messages: Map<number, string>, from: number, to: number): void {
  const loggedLines = range(from, from + UNEXPECTED_LINES_LOGGED - 1);
  const lineLogs = logLines.filter((line) => line.msg === LINE_LOGGED);
  expect(lineLogs.map((line) => line.line)).toEqual(loggedLines);
  for (const logged of lineLogs) {
    expect(logged).toMatchObject({ level: 50, importKind: 'publishers', err: { message: expect.stringContaining(TRIGGER_MESSAGE) } });
    expect((logged.err as { stack?: string }).stack).toBeTruthy();
    // The line's message names the id its error is logged under.
    const shown = messages.get(logged.line as number);
    if (shown !== undefined) expect(match(LOGGED, shown)).toBe(logged.errorId);
  }
  const rest = to - from + 1 - UNEXPECTED_LINES_LOGGED;
  const counts = logLines.filter((line) => line.msg !== LINE_LOGGED);
  expect(counts).toEqual([
    expect.objectContaining({
      level: 50,
      importKind: 'publishers',
      errorId: expect.stringMatching(/^[0-9a-f]{12}$/),
      lines: rest,
      firstLine: from + UNEXPECTED_LINES_LOGGED,
      lastLine: to,
      msg: `${rest} more import lines failed unexpectedly, not logged in full (the first ${UNEXPECTED_LINES_LOGGED} are, each under its own id)`,
    }),
  ]);
  expect(counts[0]).not.toHaveProperty('err');
  for (const [line, message] of messages) {
    if (line >= from + UNEXPECTED_LINES_LOGGED) expect(match(COUNTED, message), `line ${line}`).toBe(counts[0]!.errorId);
  }
}

describe('an import whose every line fails unexpectedly, over HTTP', () => {
  let t: TestApp;
  let key: string;
  let logs: LogCapture;
  beforeAll(async () => {
    ({ t, key, logs } = await createLoggedBackOfficeApp());
    await refuseNewPublishers(t.database.db);
  });
  afterAll(() => t.close());

  it(`logs the first ${UNEXPECTED_LINES_LOGGED} in full and counts the rest on one line, each line reported with an id found in the log`, async () => {
    const before = logs.lines().length;
    const response = await t.app.inject({
      method: 'POST',
      url: '/admin/import/publishers',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-ndjson' },
      payload: publishers(50)
        .map((line) => JSON.stringify(line))
        .join('\n'),
    });
    expect(response.statusCode, response.body).toBe(200);
    const result = response.json() as {
      outcomes: Record<string, number>;
      errors: Array<{ line: number; message: string }>;
      errorCount: number;
    };
    expect(result.outcomes).toEqual({});
    expect(result.errorCount).toBe(50);
    expect(result.errors.map((error) => error.line)).toEqual(range(1, 50));
    expect(result.errors.some((error) => error.message.includes(TRIGGER_MESSAGE))).toBe(false);
    expectCappedLog(logs.lines().slice(before), new Map(result.errors.map((error) => [error.line, error.message])), 1, 50);
    expect(await t.database.db.selectFrom('publisher').select('code').execute()).toEqual([]);
  });

  it('counts afresh in the next run', async () => {
    const before = logs.lines().length;
    const response = await t.app.inject({
      method: 'POST',
      url: '/admin/import/publishers',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-ndjson' },
      payload: publishers(UNEXPECTED_LINES_LOGGED)
        .map((line) => JSON.stringify(line))
        .join('\n'),
    });
    const result = response.json() as { errors: Array<{ line: number; message: string }> };
    expect(result.errors.map((error) => match(LOGGED, error.message))).toHaveLength(UNEXPECTED_LINES_LOGGED);
    // All of them logged in full, and no count line: none was left out.
    expect(
      logs
        .lines()
        .slice(before)
        .map((line) => line.msg),
    ).toEqual(Array(UNEXPECTED_LINES_LOGGED).fill(LINE_LOGGED));
  });
});

describe('an import whose every line fails unexpectedly, on the command line', () => {
  let cli: CliScratch;
  beforeAll(async () => {
    cli = await cliScratch('storefront-import-unexpected-');
    const database = createDatabase(cli.env.DATABASE_URL!);
    await refuseNewPublishers(database.db);
    await database.close();
  });
  afterAll(() => cli.remove());

  it(`logs the first ${UNEXPECTED_LINES_LOGGED} on stderr in full and one line counting the rest, and sums up every line`, async () => {
    const imported = await runCliProcess(['import', 'publishers', cli.ndjsonFile('publishers.ndjson', publishers(300))], cli.env);
    expect(imported.code).toBe(1);
    expect(imported.stdout).toBe('300 lines: {}, 300 bad\n');
    const shown = imported.stderr.split('\n').filter((line) => /^line \d+: /.test(line));
    const messages = new Map(shown.map((line) => [Number(/^line (\d+)/.exec(line)![1]), line.replace(/^line \d+: /, '')]));
    expect([...messages.keys()]).toEqual(range(1, 20));
    expect(imported.stderr).toContain('and 280 more bad lines, not shown (the first 20 are above)');
    expectCappedLog(jsonLogLines(imported.stderr), messages, 1, 300);
    // The file is right; the database refused it: the advice says so, not "is this an NDJSON file?".
    expect(imported.stderr).toContain(
      'No line was imported: every line failed on an unexpected error, not on a rule of the file. Its cause is in the log under the ids above; fix it and import the file again.',
    );
    expect(imported.stderr).not.toContain('is this an NDJSON file');
  }, 60_000);
});
