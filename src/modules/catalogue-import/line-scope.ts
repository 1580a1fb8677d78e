import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { LineError } from './fields.js';

// Whose lines a feed may apply: the back office's feeds (no supplier) touch any product, a
// supplier's feeds (modules/integrations) only the products that supplier keeps.

export interface LineScope {
  /** The supplier whose feed this is; undefined for the back office. */
  supplierId?: number;
}

export async function requireSupplierProduct(db: Kysely<Database>, productId: number, code: string, scope: LineScope): Promise<void> {
  if (scope.supplierId === undefined) return;
  const row = await db.selectFrom('product').select('supplier_id').where('id', '=', productId).executeTakeFirst();
  if (row?.supplier_id === null || row === undefined || Number(row.supplier_id) !== scope.supplierId) {
    throw new LineError(`/product: product "${code}" is not one of this supplier's products`);
  }
}
