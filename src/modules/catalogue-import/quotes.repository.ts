import type { Insertable, Transaction, Updateable } from 'kysely';
import type { Database } from '../../db/schema.js';

// The SQL of the quotes import (quotes.ts).

type Trx = Transaction<Database>;

export function findQuote(trx: Trx, code: string) {
  return trx.selectFrom('quote').selectAll().where('code', '=', code).executeTakeFirst();
}

export async function insertQuote(trx: Trx, quote: Insertable<Database['quote']>): Promise<void> {
  await trx.insertInto('quote').values(quote).execute();
}

export async function updateQuote(trx: Trx, id: number, values: Updateable<Database['quote']>): Promise<void> {
  await trx.updateTable('quote').set(values).where('id', '=', id).execute();
}
