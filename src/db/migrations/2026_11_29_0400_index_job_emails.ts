import { PostgresAdapter, sql, type Kysely } from 'kysely';

// "Your data" (the export, 5 an hour per person, and every erasure) found the outbox's jobs that
// name a person by `lower(payload) like '%email%'`: a read of the whole job table, which keeps done
// jobs 30 days and dead jobs for good. job_email lists, per job, the string values of its payload
// that hold an '@' (trimmed and lower-cased, at most 320 characters: an address is shorter), so a
// person's jobs are a range of its primary key.
//
// Triggers keep it in the transaction of every write of a job, whoever writes it: this build, a
// process of the build before it during a rolling deploy, a repair by hand. A job's rows go with it
// (on delete cascade, through job_email_job_idx; SQLite enforces it as the project opens every
// connection with foreign_keys on). A payload that is not JSON is listed by nothing and written
// all the same. On PostgreSQL a payload of valid JSON that jsonb refuses (a \u0000 escape or a
// lone surrogate in a string, which JSON.stringify writes for such a character) is read by its
// string tokens instead: those without an escape, which is every address.

/** At most this long a string counts as an address (64 + 1 + 255, RFC 5321's parts). */
const LONGEST = 320;

/** SQLite: the distinct addresses (trimmed, lower-cased string values with an '@') of `payload`, with `id` beside each. */
const sqliteAddresses = (id: string, payload: string, from = '') =>
  `select distinct ${id}, lower(trim(t.value))
  from ${from}json_tree(case when json_valid(${payload}) then ${payload} else '[]' end) t
  where t.type = 'text' and instr(t.value, '@') > 0 and length(trim(t.value)) <= ${LONGEST}`;

/** Both engines: the statement that takes a job's rows out (the payload trigger's, and the cascade's). */
export const jobRowsOut = (jobId: string) => `delete from job_email where job_id = ${jobId}`;

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('job_email')
    .addColumn('email', `varchar(${LONGEST})`, (c) => c.notNull())
    .addColumn('job_id', 'bigint', (c) => c.notNull().references('job.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('job_email_pk', ['email', 'job_id'])
    .modifyEnd(postgres ? sql`` : sql`without rowid`)
    .execute();
  await db.schema.createIndex('job_email_job_idx').on('job_email').column('job_id').execute();
  // The triggers first: on PostgreSQL creating them locks out writers of job until this commits,
  // and the backfill then reads every job committed before; SQLite runs migrations outside a
  // transaction, so a job another process writes between the two is listed by its trigger and the
  // backfill leaves it be.
  if (postgres) {
    await postgresTriggers(db);
    await sql`insert into job_email (job_id, email)
      select j.id, a.email from job j cross join lateral job_email_addresses(j.payload) as a(email)
      on conflict do nothing`.execute(db);
  } else {
    await sqliteTriggers(db);
    await sql
      .raw(`insert into job_email (job_id, email) ${sqliteAddresses('j.id', 'j.payload', 'job j, ')} on conflict do nothing`)
      .execute(db);
  }
}

async function sqliteTriggers(db: Kysely<any>): Promise<void> {
  const listNew = `insert into job_email (job_id, email) ${sqliteAddresses('new.id', 'new.payload')};`;
  await sql.raw(`create trigger job_email_added after insert on job begin ${listNew} end`).execute(db);
  await sql
    .raw(
      `create trigger job_email_payload_changed after update of payload on job when old.payload is not new.payload
      begin ${jobRowsOut('new.id')}; ${listNew} end`,
    )
    .execute(db);
}

async function postgresTriggers(db: Kysely<any>): Promise<void> {
  // Only the casts sit in exception blocks: a block is a subtransaction, and one that writes
  // nothing takes no transaction id of its own.
  await sql
    .raw(
      String.raw`create function job_email_addresses(payload text) returns setof text language plpgsql stable as $$
      declare doc jsonb;
      begin
        begin
          doc := payload::jsonb;
        exception when data_exception then
          doc := null;
        end;
        if doc is not null then
          return query select distinct lower(btrim(v #>> '{}')) from jsonb_path_query(doc, 'strict $.**') v
            where jsonb_typeof(v) = 'string' and strpos(v #>> '{}', '@') > 0 and length(btrim(v #>> '{}')) <= ${LONGEST};
          return;
        end if;
        begin
          perform payload::json;
        exception when data_exception then
          return;
        end;
        return query select distinct lower(btrim(m[1])) from regexp_matches(payload, '"((?:[^"\\]|\\.)*)"', 'g') m
          where strpos(m[1], '@') > 0 and strpos(m[1], '\') = 0 and length(btrim(m[1])) <= ${LONGEST};
      end $$`,
    )
    .execute(db);
  await sql
    .raw(
      `create function job_email_listed() returns trigger language plpgsql as $$ begin
        if tg_op = 'UPDATE' then ${jobRowsOut('new.id')}; end if;
        insert into job_email (job_id, email) select new.id, a from job_email_addresses(new.payload) a;
        return null;
      end $$`,
    )
    .execute(db);
  await sql`create trigger job_email_added after insert on job for each row execute function job_email_listed()`.execute(db);
  await sql`create trigger job_email_payload_changed after update of payload on job
    for each row when (old.payload is distinct from new.payload) execute function job_email_listed()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`drop trigger if exists job_email_added on job`.execute(db);
    await sql`drop trigger if exists job_email_payload_changed on job`.execute(db);
    await sql`drop function if exists job_email_listed()`.execute(db);
    await sql`drop function if exists job_email_addresses(text)`.execute(db);
  } else {
    await sql`drop trigger if exists job_email_added`.execute(db);
    await sql`drop trigger if exists job_email_payload_changed`.execute(db);
  }
  await db.schema.dropTable('job_email').execute();
}
