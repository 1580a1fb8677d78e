import { sql, type Kysely } from 'kysely';
import { idColumn, idType } from '../migration-helpers.js';

// The partner integrations' outgoing side. `integration_event` is the outbox of events for
// marketing platforms, written in the transaction of the state change that causes them. Each event
// belongs to a stream (a customer, a guest's email, a product) and takes the stream's next
// `sequence` from `integration_stream`, whose row lock orders the writers of one stream. `position`
// is the pull feed's cursor: assigned after commit, in one place at a time, in id order, so a
// position is never handed out below one a poller has already seen (ids are taken at insert, not
// at commit, and cannot be the cursor). Webhook endpoints fan the positioned events out into
// deliveries (one per endpoint and event) with their attempts logged; feed clients read the feed
// with a bearer token (its SHA-256 only).
export async function up(db: Kysely<any>): Promise<void> {
  const id = idType(db);
  const pk = idColumn(db);
  await db.schema
    .createTable('integration_event')
    .addColumn('id', id, pk)
    .addColumn('type', 'varchar(40)', (c) => c.notNull())
    .addColumn('stream', 'varchar(160)', (c) => c.notNull())
    .addColumn('sequence', 'bigint', (c) => c.notNull())
    .addColumn('position', 'bigint', (c) => c.unique())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('integration_event_stream_uq').on('integration_event').columns(['stream', 'sequence']).unique().execute();
  // The sequencer's look-up of events not yet positioned: a partial index stays as small as they are.
  await sql`create index integration_event_unpositioned_idx on integration_event (id) where position is null`.execute(db);

  await db.schema
    .createTable('integration_stream')
    .addColumn('stream', 'varchar(160)', (c) => c.primaryKey())
    .addColumn('last_sequence', 'bigint', (c) => c.notNull())
    .execute();

  // One row, 'events': the last position handed out; its row lock serialises the sequencer.
  await db.schema
    .createTable('integration_cursor')
    .addColumn('name', 'varchar(40)', (c) => c.primaryKey())
    .addColumn('position', 'bigint', (c) => c.notNull())
    .execute();
  await db.insertInto('integration_cursor').values({ name: 'events', position: 0 }).execute();

  await db.schema
    .createTable('webhook_endpoint')
    .addColumn('id', id, pk)
    .addColumn('name', 'varchar(100)', (c) => c.notNull().unique())
    .addColumn('url', 'varchar(2000)', (c) => c.notNull())
    // The signing secret as given to the receiver: it must be usable to sign (docs/integrations.md).
    .addColumn('secret', 'varchar(100)', (c) => c.notNull())
    // Comma-separated event types or prefixes (`customer.`), or `*`.
    .addColumn('event_types', 'varchar(500)', (c) => c.notNull())
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    // The last event position fanned out into deliveries for this endpoint.
    .addColumn('fanned_position', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('webhook_delivery')
    .addColumn('id', id, pk)
    .addColumn('endpoint_id', 'bigint', (c) => c.notNull().references('webhook_endpoint.id').onDelete('cascade'))
    .addColumn('event_id', 'bigint', (c) => c.notNull().references('integration_event.id').onDelete('cascade'))
    .addColumn('stream', 'varchar(160)', (c) => c.notNull())
    .addColumn('position', 'bigint', (c) => c.notNull())
    // pending (to send, or retrying), delivered, dead (gave up after max_attempts; `webhook replay`).
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('last_error', 'varchar(500)')
    .addColumn('delivered_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_delivery_event_uq').on('webhook_delivery').columns(['endpoint_id', 'event_id']).unique().execute();
  // "Is an earlier event of this stream still pending for this endpoint?": the ordering check.
  await db.schema
    .createIndex('webhook_delivery_stream_idx')
    .on('webhook_delivery')
    .columns(['endpoint_id', 'stream', 'status', 'position'])
    .execute();
  await db.schema.createIndex('webhook_delivery_due_idx').on('webhook_delivery').columns(['status', 'next_attempt_at']).execute();

  await db.schema
    .createTable('webhook_attempt')
    .addColumn('id', id, pk)
    .addColumn('delivery_id', 'bigint', (c) => c.notNull().references('webhook_delivery.id').onDelete('cascade'))
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('error', 'varchar(500)')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_attempt_delivery_idx').on('webhook_attempt').columns(['delivery_id', 'id']).execute();

  await db.schema
    .createTable('event_feed_client')
    .addColumn('id', id, pk)
    .addColumn('name', 'varchar(100)', (c) => c.notNull().unique())
    .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'event_feed_client',
    'webhook_attempt',
    'webhook_delivery',
    'webhook_endpoint',
    'integration_cursor',
    'integration_stream',
    'integration_event',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
