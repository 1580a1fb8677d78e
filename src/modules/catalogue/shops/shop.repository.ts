import type { Kysely } from 'kysely';
import type { Database } from '../../../db/schema.js';
import type { Language } from '../../../i18n/index.js';
import { translatedName, withTranslations } from '../translated.js';

/** A chain has tens of shops; this only keeps a broken import from turning into a huge answer. */
export const MAX_SHOPS = 1_000;

export interface ShopRow {
  id: number;
  code: string;
  name: string;
  city: string;
  address: string | null;
  phone: string | null;
  email: string | null;
  openingHours: string | null;
}

/** The active shops in display order, name and opening hours in the language (Estonian as fallback). */
export async function activeShops(db: Kysely<Database>, language: Language): Promise<ShopRow[]> {
  const rows = await withTranslations(db.selectFrom('shop'), 'shop_name', 'shop.id', language)
    .select([
      'shop.id',
      'shop.code',
      'shop.city',
      'shop.address',
      'shop.phone',
      'shop.email',
      'asked.name as name',
      'asked.opening_hours as opening_hours',
      'et.name as et_name',
      'et.opening_hours as et_opening_hours',
    ])
    .where('shop.is_active', '=', true)
    .where('shop.is_listed', '=', true)
    .orderBy('shop.position')
    .orderBy('shop.id')
    .limit(MAX_SHOPS)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    code: row.code,
    name: translatedName(row),
    city: row.city,
    address: row.address,
    phone: row.phone,
    email: row.email,
    openingHours: row.opening_hours ?? row.et_opening_hours,
  }));
}
