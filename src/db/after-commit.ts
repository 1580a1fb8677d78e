import type { Kysely, Transaction } from 'kysely';
import type { Db } from './database.js';
import type { Database } from './schema.js';

// What a transaction does outside the database (a metric counted) happens only once it committed: a
// rollback (an error after the count, a lost race, a COMMIT that fails) leaves it undone. Every
// transaction whose code can register one is opened by inTransaction; afterCommit on any other
// transaction is a mistake and throws, so that an effect is never silently dropped. Used by the
// subscriptions' charges and the orders' payment statuses (storefront_payments_total).

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
