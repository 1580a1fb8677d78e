import type { Db } from '../../src/db/database.js';

/** An active header banner of the store, shown to everyone, with no link or image; answers its id. */
export async function createBanner(db: Db, banner: { code: string; storeCode?: string; position?: number }): Promise<number> {
  const now = Date.now();
  const row = await db
    .insertInto('banner')
    .values({
      code: banner.code,
      store_code: banner.storeCode ?? 'WEB',
      placement: 'HEADER',
      position: banner.position ?? 1,
      customer_kinds: '',
      link_url: null,
      image_url: null,
      is_active: true,
      visible_from: null,
      visible_to: null,
      translations: '{}',
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}
