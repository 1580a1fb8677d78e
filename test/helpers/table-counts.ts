import type { Db } from '../../src/db/database.js';
import type { Database } from '../../src/db/schema.js';

// Numbers the tests read straight from the tables to see what a request wrote, or did not.

/** How many rows the table holds. */
export async function rowCount(db: Db, table: keyof Database): Promise<number> {
  const row = await db
    .selectFrom(table as 'customer_order')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The copies of the product that orders hold (product.reserved_quantity). */
export async function reservedQuantity(db: Db, productId: number): Promise<number> {
  const row = await db.selectFrom('product').select('reserved_quantity').where('id', '=', productId).executeTakeFirstOrThrow();
  return Number(row.reserved_quantity);
}
