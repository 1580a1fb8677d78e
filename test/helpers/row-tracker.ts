import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import type { Database } from '../../src/db/schema.js';
import { engine } from './test-app.js';

// Counting the rows every request adds or removes, per table, on either engine: the sweeps
// (test/http/bad-input-sweep.test.ts, test/http/double-submit-sweep.test.ts) judge requests by it.

/** Tables that legitimately change on a refused request, and why (read from the code that writes them). */
export const ATTEMPT_TABLES: Record<string, string> = {
  // Fixed-window counters: auth endpoints count every request per address, wrong link checksums and
  // failed logins count per address (src/infra/wrong-guesses.ts, accounts/login-throttle.ts), the
  // data export counts failed authentications; a refusal is exactly what they count.
  rate_limit: 'rate-limit windows and wrong-guess counts',
  // sharedSecret (src/infra/secrets.ts) stores a signing secret the first time any request needs
  // it (to check an unsubscribe link, a download link, a gift card code): once, whatever the answer.
  app_secret: 'signing secrets made on first use',
};

/**
 * Tables written by a buffer in the background (a timer or a full batch, up to a second after the
 * request that recorded the row): their rows land during whichever request runs then, so they are
 * not attributed to requests. The recorders take only what accepted requests hand them.
 */
export const BUFFERED_TABLES: Record<string, string> = {
  session_action: 'views and adds, written in batches by tracking/session-actions.ts',
  banner_ctr: 'banner views and clicks, written in batches by ctr/ctr-recorder.ts',
};

/** Net rows added (+) or removed (-) per table since the last call. */
export interface RowTracker {
  changes(): Promise<Record<string, number>>;
  /** count(*) of every table. */
  counts(): Promise<Record<string, number>>;
  close?(): Promise<void>;
}

export async function rowTracker(db: Kysely<Database>, databaseUrl: string): Promise<RowTracker> {
  const tables = (
    engine === 'sqlite'
      ? // A full-text table's count(*) reads its whole index (milliseconds): its shadow tables (_content, _docsize) are counted.
        await sql<{ name: string }>`select name from sqlite_master
          where type = 'table' and name not like 'sqlite_%' and sql not like 'create virtual table%'`.execute(db)
      : await sql<{ name: string }>`select table_name as name from information_schema.tables
          where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db)
  ).rows
    .map((row) => row.name)
    .filter((name) => !name.startsWith('kysely_migration') && name !== 'sweep_row_log')
    .sort();
  const countQuery = sql.raw<Record<string, number | string>>(
    `select ${tables.map((name, i) => `(select count(*) from "${name}") as c${i}`).join(', ')}`,
  );
  const counts = async () => {
    const row = (await countQuery.execute(db)).rows[0]!;
    return Object.fromEntries(tables.map((name, i) => [name, Number(row[`c${i}`])]));
  };
  if (engine === 'sqlite') {
    // Counting every table took 1-3 ms a request on a seeded database, a third of the bad-input
    // sweep's time, and most requests write nothing. SQLite's total_changes() counts every row the
    // connection inserted, updated or deleted (triggers and cascades included), so while it stands
    // still no table's count can have moved and the counting is skipped. An in-memory database has
    // only the one connection, the app's; a database file may have others (a read pool, a second
    // process), whose writes total_changes() does not see: there every request is counted. The
    // bad-input sweep still compares full counts around each operation, which checks this too.
    const oneConnection = databaseUrl === 'sqlite::memory:';
    const totalChanges = async () => Number((await sql<{ n: number }>`select total_changes() as n`.execute(db)).rows[0]!.n);
    let seen = oneConnection ? await totalChanges() : 0;
    let last = await counts();
    return {
      counts,
      async changes() {
        if (oneConnection) {
          const total = await totalChanges();
          if (total === seen) return {};
          seen = total;
        }
        const now = await counts();
        const changed = Object.fromEntries(tables.filter((n) => now[n] !== last[n]).map((n) => [n, now[n]! - last[n]!]));
        last = now;
        return changed;
      },
    };
  }
  // On PostgreSQL counting every table takes some 20 ms, too long for each of thousands of
  // requests: a row trigger on every table logs each insert and delete (in the writer's
  // transaction, so a rolled-back write leaves nothing), and the log since the last request gives
  // the changes. The sweep also compares full counts around each operation, which checks the log.
  await sql`create unlogged table sweep_row_log (id bigserial primary key, t text not null, d integer not null)`.execute(db);
  await sql`create function sweep_row_logged() returns trigger language plpgsql as $$
      begin insert into sweep_row_log (t, d) values (tg_table_name, case when tg_op = 'INSERT' then 1 else -1 end); return null; end $$`.execute(
    db,
  );
  for (const name of tables) {
    await sql
      .raw(`create trigger sweep_row_logged after insert or delete on "${name}" for each row execute function sweep_row_logged()`)
      .execute(db);
  }
  // The log's last id, read on a connection of its own (a pooled query costs twice the round trip),
  // tells whether anything was logged; only then is the log read.
  const probe = new pg.Client({ connectionString: databaseUrl });
  await probe.connect();
  let lastId = 0;
  return {
    counts,
    async changes() {
      const { rows: last } = await probe.query<{ id: string | null }>('select max(id) as id from sweep_row_log');
      if (Number(last[0]!.id ?? 0) === lastId) return {};
      const { rows } = await probe.query<{ t: string; d: string; last: string }>(
        'select t, sum(d) as d, max(id) as last from sweep_row_log where id > $1 group by t',
        [lastId],
      );
      for (const row of rows) lastId = Math.max(lastId, Number(row.last));
      return Object.fromEntries(rows.filter((row) => Number(row.d) !== 0).map((row) => [row.t, Number(row.d)]));
    },
    close: () => probe.end(),
  };
}
