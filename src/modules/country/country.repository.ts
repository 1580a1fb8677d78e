import type { Db } from '../../db/database.js';

export interface CountryItem {
  code: string;
  name: string;
}

/**
 * Every country with its name in `language`, pinned ones first, then by name. The list is small
 * reference data (tens of rows), read once per cache period and paged in memory.
 */
export function allCountries(db: Db, language: string): Promise<CountryItem[]> {
  return db
    .selectFrom('country')
    .innerJoin('country_name', (join) =>
      join.onRef('country_name.country_code', '=', 'country.code').on('country_name.language', '=', language),
    )
    .select(['country.code', 'country_name.name'])
    .orderBy('country.position')
    .orderBy('country_name.name')
    .orderBy('country.code')
    .execute();
}
