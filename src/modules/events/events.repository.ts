import { sql } from 'kysely';
import type { Db } from '../../db/database.js';

// The SQL of the event outbox: writing an event in the caller's transaction, handing out feed
// positions after commit, and reading the feed.

/** The stream's next sequence. The upsert locks the stream's row until the caller commits, so the writers of one stream queue up. */
export async function nextSequence(trx: Db, stream: string): Promise<number> {
  const row = await trx
    .insertInto('integration_stream')
    .values({ stream, last_sequence: 1 })
    .onConflict((conflict) => conflict.column('stream').doUpdateSet({ last_sequence: sql<number>`integration_stream.last_sequence + 1` }))
    .returning('last_sequence')
    .executeTakeFirstOrThrow();
  return Number(row.last_sequence);
}

export async function insertEvent(
  trx: Db,
  event: { type: string; stream: string; sequence: number; data: string; createdAt: number },
): Promise<number> {
  const row = await trx
    .insertInto('integration_event')
    .values({ type: event.type, stream: event.stream, sequence: event.sequence, data: event.data, created_at: event.createdAt })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/**
 * Positions the committed events that have none, in id order, after the last position handed out;
 * how many it positioned. Run in a transaction of its own: the counter row's lock makes one
 * sequencer run at a time (any process), so positions only grow in the order they become visible.
 */
export async function positionEvents(trx: Db, batch: number): Promise<number> {
  const counter = await trx
    .updateTable('integration_cursor')
    .set({ position: sql<number>`position` })
    .where('name', '=', 'events')
    .returning('position')
    .executeTakeFirstOrThrow();
  const base = Number(counter.position);
  const result = await sql`
    update integration_event set position = ${base} + numbered.n
    from (
      select id, row_number() over (order by id) as n
      from (select id from integration_event where position is null order by id limit ${batch}) as unpositioned
    ) as numbered
    where integration_event.id = numbered.id`.execute(trx);
  const positioned = Number(result.numAffectedRows ?? 0);
  if (positioned > 0) {
    await trx
      .updateTable('integration_cursor')
      .set({ position: base + positioned })
      .where('name', '=', 'events')
      .execute();
  }
  return positioned;
}

export interface EventRow {
  id: number;
  type: string;
  stream: string;
  sequence: number;
  position: number;
  data: string;
  created_at: number;
}

/** Positioned events after `after`, by position. */
export async function eventsAfter(db: Db, after: number, limit: number): Promise<EventRow[]> {
  const rows = await db
    .selectFrom('integration_event')
    .select(['id', 'type', 'stream', 'sequence', 'position', 'data', 'created_at'])
    .where('position', '>', after)
    .orderBy('position')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ ...row, position: Number(row.position) }));
}

/** The last position handed out (0 when none). */
export async function lastPosition(db: Db): Promise<number> {
  const row = await db.selectFrom('integration_cursor').select('position').where('name', '=', 'events').executeTakeFirst();
  return Number(row?.position ?? 0);
}
