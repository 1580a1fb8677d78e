import type { Kysely } from 'kysely';
import type { Database } from '../../../db/schema.js';
import { countRows } from '../browse/browse.repository.js';
import type { Caller } from '../caller.js';
import { visibleProduct } from '../visibility.js';

export interface QuoteFilter {
  storeCode: string;
  caller: Caller;
  productId?: number;
  personId?: number;
  /** A language code (et, en, ru); undefined: every language. */
  language?: string;
}

export interface QuoteRow {
  id: number;
  code: string;
  text: string;
  language: string;
  product: { id: number; code: string; name: string } | null;
  person: { id: number; code: string; name: string } | null;
  createdAt: number;
}

/** Quotes of the filter; a quote about a product the caller cannot see in the store is left out. */
function quotes(db: Kysely<Database>, filter: QuoteFilter) {
  let query = db
    .selectFrom('quote as q')
    .leftJoin('product as p', 'p.id', 'q.product_id')
    .where((eb) => eb.or([eb('q.product_id', 'is', null), visibleProduct(filter.storeCode, filter.caller)]));
  if (filter.productId !== undefined) query = query.where('q.product_id', '=', filter.productId);
  if (filter.personId !== undefined) query = query.where('q.person_id', '=', filter.personId);
  if (filter.language !== undefined) query = query.where('q.language', '=', filter.language);
  return query;
}

export const countQuotes = (db: Kysely<Database>, filter: QuoteFilter) => countRows(quotes(db, filter));

/** One page, the newest first. */
export async function quotePage(db: Kysely<Database>, filter: QuoteFilter, offset: number, limit: number): Promise<QuoteRow[]> {
  const rows = await quotes(db, filter)
    .leftJoin('person', 'person.id', 'q.person_id')
    .select([
      'q.id',
      'q.code',
      'q.text',
      'q.language',
      'q.created_at',
      'p.id as product_id',
      'p.code as product_code',
      'p.name as product_name',
      'person.id as person_id',
      'person.code as person_code',
      'person.name as person_name',
    ])
    .orderBy('q.id', 'desc')
    .offset(offset)
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    code: row.code,
    text: row.text,
    language: row.language,
    product: row.product_id === null ? null : { id: row.product_id, code: row.product_code!, name: row.product_name! },
    person: row.person_id === null ? null : { id: row.person_id, code: row.person_code!, name: row.person_name! },
    createdAt: row.created_at,
  }));
}
