import { PostgresAdapter, sql, type Kysely } from 'kysely';

// Migration 2026_12_11_1200 gave subscription charges settled_at and each refund a row of
// subscription_charge_refund, both written by this build's code only. A process of the release before (running on
// during a rolling deploy, or until its workers are replaced) settles a charge without settled_at (out of
// `subscription stats`' revenue and `started` for good), clears none when it moves money taken for nothing to
// refund_due, and raises refunded_cents without a row (the refund never taken off any month, the column no longer
// the sum of the rows). Triggers do it for that release as this build's code does: a move to settled that names no
// settled_at gets the move's updated_at; a move to refund_due clears it; refunded_cents raised above the sum of the
// charge's rows gets a row of the rest, kind `unknown`, at the database's clock (this build's recordRefunded writes
// its row before the column, so for it they find nothing to do). Then what such a process wrote between the two
// migrations is booked as 1200 booked earlier rows.
const CHARGE_TRIGGERS = ['subscription_charge_settled_at', 'subscription_charge_refund_row'] as const;

export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`create function subscription_charge_settled_at() returns trigger language plpgsql as $$
      begin
        if new.state = 'settled' and old.state <> 'settled' and new.settled_at is null then
          new.settled_at := new.updated_at;
        elsif new.state = 'refund_due' then
          new.settled_at := null;
        end if;
        return new;
      end $$`.execute(db);
    await sql`create trigger subscription_charge_settled_at before update of state on subscription_charge
      for each row execute function subscription_charge_settled_at()`.execute(db);
    await sql`create function subscription_charge_refund_row() returns trigger language plpgsql as $$
      declare recorded bigint;
      begin
        select coalesce(sum(amount_cents), 0) into recorded from subscription_charge_refund where charge_id = new.id;
        if new.refunded_cents > recorded then
          insert into subscription_charge_refund (charge_id, kind, amount_cents, refunded_at)
          values (new.id, 'unknown', new.refunded_cents - recorded, (extract(epoch from clock_timestamp()) * 1000)::bigint);
        end if;
        return null;
      end $$`.execute(db);
    await sql`create trigger subscription_charge_refund_row after update of refunded_cents on subscription_charge
      for each row when (new.refunded_cents > old.refunded_cents) execute function subscription_charge_refund_row()`.execute(db);
  } else {
    await sql`create trigger subscription_charge_settled_at after update of state on subscription_charge
      when new.state = 'settled' and old.state <> 'settled' and new.settled_at is null
      begin update subscription_charge set settled_at = new.updated_at where id = new.id; end`.execute(db);
    await sql`create trigger subscription_charge_unsettled after update of state on subscription_charge
      when new.state = 'refund_due' and new.settled_at is not null
      begin update subscription_charge set settled_at = null where id = new.id; end`.execute(db);
    await sql`create trigger subscription_charge_refund_row after update of refunded_cents on subscription_charge
      when new.refunded_cents > (select coalesce(sum(amount_cents), 0) from subscription_charge_refund where charge_id = new.id)
      begin
        insert into subscription_charge_refund (charge_id, kind, amount_cents, refunded_at)
        select new.id, 'unknown', new.refunded_cents - coalesce(sum(amount_cents), 0),
          cast((julianday('now') - 2440587.5) * 86400000 as integer)
        from subscription_charge_refund where charge_id = new.id;
      end`.execute(db);
  }
  // What a process of the release before wrote since 2026_12_11_1200, booked as that migration booked earlier rows.
  await sql`update subscription_charge set settled_at = updated_at where state = 'settled' and settled_at is null`.execute(db);
  await sql`
    insert into subscription_charge_refund (charge_id, kind, amount_cents, refunded_at)
    select c.id, 'unknown', c.refunded_cents - coalesce(r.recorded, 0), c.updated_at
    from subscription_charge c
    left join (select charge_id, sum(amount_cents) as recorded from subscription_charge_refund group by charge_id) r
      on r.charge_id = c.id
    where c.refunded_cents > coalesce(r.recorded, 0)
    order by c.id
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    for (const name of CHARGE_TRIGGERS) {
      await sql`drop trigger ${sql.raw(name)} on subscription_charge`.execute(db);
      await sql`drop function ${sql.raw(name)}()`.execute(db);
    }
  } else {
    for (const name of [...CHARGE_TRIGGERS, 'subscription_charge_unsettled']) await sql`drop trigger ${sql.raw(name)}`.execute(db);
  }
}
