import type { Db } from '../../db/database.js';

export interface StoreContact {
  companyName: string | null;
  email: string | null;
  phone: string | null;
  address: string | null;
}

export async function findStoreContact(db: Db, storeCode: string): Promise<StoreContact> {
  const row = await db.selectFrom('store_contact').selectAll().where('store_code', '=', storeCode).executeTakeFirst();
  return { companyName: row?.company_name ?? null, email: row?.email ?? null, phone: row?.phone ?? null, address: row?.address ?? null };
}

/** Sets the given fields (null clears one); returns whether the store has a row. */
export async function updateStoreContact(db: Db, storeCode: string, changes: Partial<StoreContact>, now: number): Promise<boolean> {
  const result = await db
    .updateTable('store_contact')
    .set({
      ...(changes.companyName !== undefined && { company_name: changes.companyName }),
      ...(changes.email !== undefined && { email: changes.email }),
      ...(changes.phone !== undefined && { phone: changes.phone }),
      ...(changes.address !== undefined && { address: changes.address }),
      updated_at: now,
    })
    .where('store_code', '=', storeCode)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
