import type { Kysely } from 'kysely';
import type { Database } from '../../../db/schema.js';
import type { Language } from '../../../i18n/index.js';

/** Binding names in every language: a dozen rows of reference data, read once per cache period. */
export interface BindingNames {
  name(code: string, language: Language): string;
}

export async function readBindingNames(db: Kysely<Database>): Promise<BindingNames> {
  const rows = await db.selectFrom('binding_name').select(['binding_code', 'language', 'name']).execute();
  const names = new Map(rows.map((row) => [`${row.binding_code}:${row.language}`, row.name]));
  return {
    name: (code: string, language: Language) => names.get(`${code}:${language}`) ?? names.get(`${code}:et`) ?? code,
  };
}
