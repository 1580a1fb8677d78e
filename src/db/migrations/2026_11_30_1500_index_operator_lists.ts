import type { Kysely } from 'kysely';

// The operators' lists read a status's or an endpoint's rows newest first, a page at a time:
// `jobs list --status=<s>` (job where status = ? order by id desc) and `webhook deliveries <name>
// [--status <s>]` (webhook_delivery where endpoint_id = ? [and status = ?] order by position desc).
// No index held those rows in that order, so both engines read every row of the status or the
// endpoint and sorted them (SQLite: USE TEMP B-TREE FOR ORDER BY; 0.5 s for `jobs list
// --status=done` at 500,000 jobs, which the outbox keeps for 30 days). With these a page is the
// index's first entries, read backwards.

const INDEXES = [
  { name: 'job_status_id_idx', table: 'job', columns: ['status', 'id'] },
  { name: 'webhook_delivery_endpoint_position_idx', table: 'webhook_delivery', columns: ['endpoint_id', 'position'] },
  { name: 'webhook_delivery_endpoint_status_position_idx', table: 'webhook_delivery', columns: ['endpoint_id', 'status', 'position'] },
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const index of INDEXES) await db.schema.createIndex(index.name).on(index.table).columns(index.columns).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const index of [...INDEXES].reverse()) await db.schema.dropIndex(index.name).execute();
}
