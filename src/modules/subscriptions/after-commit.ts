import type { Kysely, Transaction } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';

// What a transaction of this module does outside the database (a metric counted) happens only
// once it committed: a rollback (an error after the count, a lost race) leaves it undone. The
// module's transactions that can register one are opened by inTransaction; afterCommit on any
// other transaction is a mistake and throws, so that an effect is never silently dropped.

const effectsOf = new WeakMap<Transaction<Database>, (() => void)[]>();

/** db.transaction().execute(work), then the effects `work` registered with afterCommit, in order. */
export async function inTransaction<T>(db: Kysely<Database>, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  const effects: (() => void)[] = [];
  const result = await db.transaction().execute((trx) => {
    effectsOf.set(trx, effects);
    return work(trx);
  });
  for (const effect of effects) effect();
  return result;
}

/** Runs `effect` once the transaction `db` is in has committed; at once outside a transaction (its writes are committed). */
export function afterCommit(db: Db, effect: () => void): void {
  if (!db.isTransaction) {
    effect();
    return;
  }
  const effects = effectsOf.get(db as Transaction<Database>);
  if (!effects) throw new Error('afterCommit: the transaction was not opened by inTransaction');
  effects.push(effect);
}
