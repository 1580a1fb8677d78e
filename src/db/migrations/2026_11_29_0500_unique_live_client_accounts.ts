import { PostgresAdapter, sql, type Kysely } from 'kysely';

// A person removed from a company and invited by another got their removed account back, moved to
// the new company with everything kept by its id (the first company's orders, addresses, baskets,
// downloads...), because a user had one account per store and kind: the unique constraint
// client_account_user_store_type_uq. A removed account now stays with the company that removed it,
// and another company's invitation makes a new one, so the key is unique only among the accounts in
// use: a partial unique index over the accounts that are neither REMOVED nor ERASED (an erasure
// marks every account of the person, a removed one beside a live one among them).
//
// An upsert names the partial index by its columns AND its condition (SQLite matches the condition
// as written): accounts.repository.ts's ensureClientAccount carries LIVE_ACCOUNT's text.
//
// PostgreSQL, in the migration's transaction: the index is built first (writes to client_account
// wait, reads go on), then the constraint is dropped (a moment's exclusive lock). SQLite cannot drop
// a table's constraint: the table is made again without it (foreign keys off, in one transaction,
// ids, the AUTOINCREMENT counter, indexes and triggers kept). Through a temporary copy, not a new
// table renamed into place: a rename checks every trigger and view (114 ms on every new database).
//
// Down puts the constraint back, and refuses (with the keys named) while a user holds two accounts
// of one kind in one store: merging them would hand one company's orders to the other.

const FULL = 'client_account_user_store_type_uq';
const LIVE = 'client_account_live_uq';
/** The accounts the key is unique among; ensureClientAccount's upsert repeats it word for word. */
const LIVE_ACCOUNT = `status not in ('REMOVED', 'ERASED')`;
const KEY = ['user_id', 'store_code', 'type'];
const FULL_CLAUSE = `constraint "${FULL}" unique (${KEY.map((c) => `"${c}"`).join(', ')})`;

const isPostgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter;

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await sql.raw(`create unique index ${LIVE} on client_account (${KEY.join(', ')}) where ${LIVE_ACCOUNT}`).execute(db);
    await sql.raw(`alter table client_account drop constraint ${FULL}`).execute(db);
    return;
  }
  await remakeSqliteTable(db, (ddl) => {
    const without = ddl.replace(/,\s*constraint\s+"?client_account_user_store_type_uq"?\s+unique\s*\([^)]*\)/i, '');
    if (without === ddl) throw new Error(`client_account has no ${FULL} to drop: ${ddl}`);
    return without;
  });
  await sql.raw(`create unique index ${LIVE} on client_account (${KEY.join(', ')}) where ${LIVE_ACCOUNT}`).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await refuseDuplicateKeys(db);
  if (isPostgres(db)) {
    await sql.raw(`create unique index ${FULL} on client_account (${KEY.join(', ')})`).execute(db);
    await sql.raw(`alter table client_account add constraint ${FULL} unique using index ${FULL}`).execute(db);
    await sql.raw(`drop index ${LIVE}`).execute(db);
    return;
  }
  await remakeSqliteTable(db, (ddl) => ddl.replace(/\)\s*$/, `, ${FULL_CLAUSE})`), [LIVE]);
}

/** Down's check: every (user, store, kind) must hold one account before the constraint can return. */
async function refuseDuplicateKeys(db: Kysely<any>): Promise<void> {
  const { rows } = await sql<{ user_id: number | string; store_code: string; type: string; accounts: number | string }>`
    select user_id, store_code, type, count(*) as accounts from client_account
    group by user_id, store_code, type having count(*) > 1 order by user_id, store_code, type limit 20`.execute(db);
  if (rows.length === 0) return;
  const keys = rows.map((row) => `user ${row.user_id} ${row.store_code} ${row.type} (${row.accounts} accounts)`).join('; ');
  throw new Error(
    `Cannot restore ${FULL}: these users hold more than one account of one kind in one store (a company account removed or ` +
      `erased beside another, made since migration 2026_11_29_0500): ${keys}${rows.length === 20 ? '; and maybe more' : ''}. ` +
      'Each account carries its own company\u2019s orders, addresses and baskets, so they are not merged here; ' +
      'settle them by hand (e.g. delete the accounts no order, basket or download names), then run down again.',
  );
}

/**
 * SQLite: client_account made again from its own CREATE statement as `change` rewrites it, rows,
 * indexes (but `dropIndexes`) and triggers as they were. Foreign keys are off meanwhile, so
 * dropping the table deletes nothing that refers to it (the ids are the same afterwards); the
 * pragma has no effect inside a transaction, so it is set around it, and checked.
 */
async function remakeSqliteTable(db: Kysely<any>, change: (ddl: string) => string, dropIndexes: string[] = []): Promise<void> {
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    const { rows } = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db);
    if (Number(rows[0]?.foreign_keys) !== 0)
      throw new Error('foreign keys are still on (a transaction is open?): client_account not remade');
    await db.transaction().execute(async (trx) => {
      const schema = await sql<{ type: string; name: string; sql: string | null }>`
        select type, name, sql from sqlite_master where tbl_name = 'client_account' order by type = 'table' desc, name`.execute(trx);
      const table = schema.rows.find((row) => row.type === 'table')!;
      const others = schema.rows.filter((row) => row.type !== 'table' && row.sql !== null && !dropIndexes.includes(row.name));
      const counter = await sql<{ seq: number | string }>`select seq from sqlite_sequence where name = 'client_account'`.execute(trx);
      await sql`create temp table client_account_copy as select * from client_account`.execute(trx);
      await sql`drop table client_account`.execute(trx);
      await sql.raw(change(table.sql!)).execute(trx);
      await sql`insert into client_account select * from temp.client_account_copy`.execute(trx);
      await sql`drop table temp.client_account_copy`.execute(trx);
      for (const row of others) await sql.raw(row.sql!).execute(trx);
      // AUTOINCREMENT never gives an id again, also one whose account was deleted since: keep the counter.
      const seq = counter.rows[0]?.seq;
      if (seq !== undefined) {
        await sql`delete from sqlite_sequence where name = 'client_account'`.execute(trx);
        await sql`insert into sqlite_sequence (name, seq) values ('client_account', ${Number(seq)})`.execute(trx);
      }
      const broken = await sql`pragma foreign_key_check(client_account)`.execute(trx);
      if (broken.rows.length > 0) throw new Error(`client_account refers to missing rows: ${JSON.stringify(broken.rows.slice(0, 5))}`);
    });
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}
