import type { Kysely } from 'kysely';
import type { Database } from '../../../db/schema.js';
import type { PersonRole } from '../catalogue.tables.js';
import type { Caller } from '../caller.js';
import { countRows, withNamePrefix, type NameFilter } from './browse.repository.js';
import { visibleProduct } from '../visibility.js';
import { PERSON_ROLES } from '../catalogue.schemas.js';

export interface PersonListItem {
  id: number;
  code: string;
  name: string;
  sortName: string;
  imageUrl: string | null;
}

export interface PersonRow extends PersonListItem {
  description: string | null;
}

/**
 * Persons who are AUTHOR of a product the caller may see in the store, filed by surname: the letter
 * is the sort name's first, `q` the start of the name or of the sort name ("Jaan" and "Kross" both find
 * Jaan Kross). Walks person_sort_name_idx in sort-name order and stops at the page's end; the EXISTS
 * probes product_person_person_idx per person.
 */
function authors(db: Kysely<Database>, filter: NameFilter) {
  const query = db
    .selectFrom('person')
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('product_person as pp')
          .innerJoin('product as p', 'p.id', 'pp.product_id')
          .select('pp.product_id')
          .whereRef('pp.person_id', '=', 'person.id')
          .where('pp.role', '=', 'AUTHOR')
          .where(visibleProduct(filter.storeCode, filter.caller)),
      ),
    );
  return withNamePrefix(db, query, { q: ['person.name', 'person.sort_name'], letter: 'person.sort_name' }, filter);
}

export const countAuthors = (db: Kysely<Database>, filter: NameFilter) => countRows(authors(db, filter));

export function authorPage(db: Kysely<Database>, filter: NameFilter, offset: number, limit: number): Promise<PersonListItem[]> {
  return authors(db, filter)
    .select(['person.id', 'person.code', 'person.name', 'person.sort_name as sortName', 'person.image_url as imageUrl'])
    .orderBy('person.sort_name')
    .orderBy('person.id')
    .offset(offset)
    .limit(limit)
    .execute();
}

export async function findPerson(db: Kysely<Database>, id: number): Promise<PersonRow | undefined> {
  return db
    .selectFrom('person')
    .select(['id', 'code', 'name', 'sort_name as sortName', 'description', 'image_url as imageUrl'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The roles the person has in products the caller may see in the store, in the usual order. */
export async function personRoles(db: Kysely<Database>, personId: number, storeCode: string, caller: Caller): Promise<PersonRole[]> {
  const rows = await db
    .selectFrom('product_person as pp')
    .innerJoin('product as p', 'p.id', 'pp.product_id')
    .select('pp.role')
    .distinct()
    .where('pp.person_id', '=', personId)
    .where(visibleProduct(storeCode, caller))
    .execute();
  const held = new Set(rows.map((row) => row.role));
  return PERSON_ROLES.filter((role) => held.has(role));
}
