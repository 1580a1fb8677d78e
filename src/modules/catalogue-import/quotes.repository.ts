import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';

// The SQL of the quotes import (quotes.ts).

export function findQuote(trx: Db, code: string) {
  return trx.selectFrom('quote').selectAll().where('code', '=', code).executeTakeFirst();
}

export async function insertQuote(trx: Db, quote: Insertable<Database['quote']>): Promise<void> {
  await trx.insertInto('quote').values(quote).execute();
}

export async function updateQuote(trx: Db, id: number, values: Updateable<Database['quote']>): Promise<void> {
  await trx.updateTable('quote').set(values).where('id', '=', id).execute();
}
