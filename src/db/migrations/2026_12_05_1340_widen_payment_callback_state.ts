import { PostgresAdapter, sql, type Kysely } from 'kysely';

// The callback inbox keys a refund by the sum refunded in all, `refunded:<cents>` (payment-status.service.ts
// inboxState), so that each larger refund of a payment is applied once. Its state column was varchar(16) on
// PostgreSQL: from 100,000.00 euros refunded (`refunded:10000000`, 17 characters) the row was refused, and
// the operator's refund, made at the gateway, was a 500 that recorded nothing, and the gateway's callback of
// it a 500 on every retry. A payment is an order's total, an integer column: `refunded:` and its ten digits
// at most are 19 characters. Widened to 32, a change of the declared length only (no rewrite of the table or
// its primary key). SQLite does not enforce a varchar's length.

const isPostgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter;

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) await sql`alter table payment_callback alter column state type varchar(32)`.execute(db);
}

export async function down(): Promise<void> {
  // Left wide: the build before reads and writes the wider column as it did the narrow one, and narrowing it
  // again would fail on (or cut, and so merge) the inbox rows of the refunds of 100,000 euros or more.
}
