import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import { lockRowsOnPostgres } from '../../db/row-lock.js';
import type { SupplierTable } from './integrations.tables.js';

export type SupplierRow = Selectable<SupplierTable>;

export function findSupplierByCode(db: Db, code: string): Promise<SupplierRow | undefined> {
  return db.selectFrom('supplier').selectAll().where('code', '=', code).executeTakeFirst();
}

export function allSuppliers(db: Db): Promise<SupplierRow[]> {
  return db.selectFrom('supplier').selectAll().orderBy('code').execute();
}

export async function insertSupplier(db: Db, supplier: { code: string; name: string; secret: string }, now: number): Promise<void> {
  await db
    .insertInto('supplier')
    .values({ ...supplier, disabled_at: null, secret_rotated_at: now, created_at: now })
    .execute();
}

export async function updateSupplier(
  db: Db,
  id: number,
  changes: Partial<Pick<SupplierRow, 'secret' | 'secret_rotated_at' | 'disabled_at'>>,
): Promise<void> {
  await db.updateTable('supplier').set(changes).where('id', '=', id).execute();
}

/**
 * Locks, on PostgreSQL until the transaction ends, the supplier's row (no feed line adds a product
 * of it meanwhile: that insert waits for the row) and then its products' rows in id order, before
 * deleteSupplier. The foreign key's `set null` is one UPDATE of all of them, which locks them in the
 * order its plan meets them (a seq or bitmap scan's heap order, not the ids'), while a checkout
 * holds its products' stock in id order: each held a product the other waited for, and PostgreSQL
 * ended one, the checkout's 500 (test/orders/checkout-during-supplier-removal.test.ts).
 */
export async function lockSupplierAndProducts(trx: Db, id: number): Promise<void> {
  await lockRowsOnPostgres(trx, trx.selectFrom('supplier').select('id').where('id', '=', id));
  await lockRowsOnPostgres(trx, trx.selectFrom('product').select('id').where('supplier_id', '=', id).orderBy('id'), 'no key update');
}

/** Removes the supplier; its products stay, kept by nobody (product.supplier_id is set null). */
export async function deleteSupplier(db: Db, id: number): Promise<void> {
  await db.deleteFrom('supplier').where('id', '=', id).execute();
}

export async function countSupplierProducts(db: Db, id: number): Promise<number> {
  const row = await db
    .selectFrom('product')
    .select((eb) => eb.fn.countAll().as('count'))
    .where('supplier_id', '=', id)
    .where('is_active', '=', true)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/**
 * Records an accepted signature; false when it was recorded before (a replay). Signatures older
 * than `forgetBefore` are dropped first: the timestamp check refuses those requests anyway.
 */
export async function recordSignature(db: Db, supplierId: number, signature: string, now: number, forgetBefore: number): Promise<boolean> {
  await db.deleteFrom('supplier_request').where('received_at', '<', forgetBefore).execute();
  const inserted = await db
    .insertInto('supplier_request')
    .values({ supplier_id: supplierId, signature, received_at: now })
    .onConflict((conflict) => conflict.columns(['supplier_id', 'signature']).doNothing())
    .returning('signature')
    .executeTakeFirst();
  return inserted !== undefined;
}
