import type { Kysely } from 'kysely';
import type { Database } from '../../../db/schema.js';
import type { Language } from '../../../i18n/index.js';
import { withTranslations } from '../translated.js';

export interface CategoryRow {
  id: number;
  code: string;
  level: number;
  position: number;
  parent_id: number | null;
  name: string | null;
  description: string | null;
  et_name: string | null;
  et_description: string | null;
}

/** A store's active categories in display order, named in the language (and in Estonian, the fallback). */
export function categoryRows(db: Kysely<Database>, storeCode: string, language: Language): Promise<CategoryRow[]> {
  return withTranslations(db.selectFrom('category as c'), 'category_name', 'c.id', language)
    .select([
      'c.id',
      'c.code',
      'c.level',
      'c.position',
      'c.parent_id',
      'asked.name as name',
      'asked.description as description',
      'et.name as et_name',
      'et.description as et_description',
    ])
    .where('c.store_code', '=', storeCode)
    .where('c.is_active', '=', true)
    .orderBy('c.position')
    .orderBy('c.id')
    .execute();
}
