import type { Db } from '../../db/database.js';
import type { BannerCheck } from './ctr-recorder.js';

/**
 * The one place click-through statistics learn which banners exist: ids of the store's banners
 * (the content module's `banner` table) among those asked. Active or not: a banner switched off a
 * minute ago was still shown to someone then. Should the content module export a check of its
 * own, app.ts hands that in instead and this file goes.
 */
export function existingBanners(db: Db): BannerCheck {
  return async (storeCode, bannerIds) => {
    if (bannerIds.length === 0) return new Set();
    const rows = await db.selectFrom('banner').select('id').where('store_code', '=', storeCode).where('id', 'in', bannerIds).execute();
    return new Set(rows.map((row) => Number(row.id)));
  };
}
