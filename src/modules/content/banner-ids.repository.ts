import type { Db } from '../../db/database.js';

/**
 * Which of the asked ids are banners of the store (click-through statistics count only those).
 * Active or not: a banner switched off a minute ago was still shown to someone then.
 */
export function existingBanners(db: Db): (storeCode: string, bannerIds: readonly number[]) => Promise<ReadonlySet<number>> {
  return async (storeCode, bannerIds) => {
    if (bannerIds.length === 0) return new Set();
    const rows = await db.selectFrom('banner').select('id').where('store_code', '=', storeCode).where('id', 'in', bannerIds).execute();
    return new Set(rows.map((row) => Number(row.id)));
  };
}
