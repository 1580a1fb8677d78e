import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { PageRequest } from '../../http/paging.js';

export interface CountryItem {
  code: string;
  name: string;
}

export async function countCountries(db: Kysely<Database>): Promise<number> {
  const row = await db.selectFrom('country').select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow();
  return Number(row.total);
}

/** One page of countries with names in `language`; pinned ones first, then by name. */
export function listCountries(db: Kysely<Database>, language: string, page: PageRequest): Promise<CountryItem[]> {
  return db
    .selectFrom('country')
    .innerJoin('country_name', (join) =>
      join.onRef('country_name.country_code', '=', 'country.code').on('country_name.language', '=', language),
    )
    .select(['country.code', 'country_name.name'])
    .orderBy('country.position')
    .orderBy('country_name.name')
    .orderBy('country.code')
    .limit(page.perPage)
    .offset(page.offset)
    .execute();
}
