import type { Kysely } from 'kysely';
import type { Database } from '../../../db/schema.js';
import { countRows, withNamePrefix, type NameFilter } from './browse.repository.js';
import { visibleProduct } from '../visibility.js';

export interface SeriesListItem {
  id: number;
  code: string;
  name: string;
  publisher: { id: number; code: string; name: string } | null;
}

export interface SeriesRow extends SeriesListItem {
  description: string | null;
}

export interface SeriesFilter extends NameFilter {
  publisherId?: number;
}

/** Series with a product the caller may see in the store (series_name_idx, product_series_idx). */
function seriesList(db: Kysely<Database>, filter: SeriesFilter) {
  let query = db
    .selectFrom('series')
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('product as p')
          .select('p.id')
          .whereRef('p.series_id', '=', 'series.id')
          .where(visibleProduct(filter.storeCode, filter.caller)),
      ),
    );
  if (filter.publisherId !== undefined) query = query.where('series.publisher_id', '=', filter.publisherId);
  return withNamePrefix(db, query, 'series.name', filter);
}

export const countSeries = (db: Kysely<Database>, filter: SeriesFilter) => countRows(seriesList(db, filter));

interface PublisherColumns {
  publisher_id: number | null;
  publisher_code: string | null;
  publisher_name: string | null;
}

function withPublisher<T extends PublisherColumns>({ publisher_id, publisher_code, publisher_name, ...series }: T) {
  const publisher =
    publisher_id === null || publisher_code === null || publisher_name === null
      ? null
      : { id: publisher_id, code: publisher_code, name: publisher_name };
  return { ...series, publisher };
}

const PUBLISHER_COLUMNS = ['publisher.id as publisher_id', 'publisher.code as publisher_code', 'publisher.name as publisher_name'] as const;

export async function seriesPage(db: Kysely<Database>, filter: SeriesFilter, offset: number, limit: number): Promise<SeriesListItem[]> {
  const rows = await seriesList(db, filter)
    .leftJoin('publisher', 'publisher.id', 'series.publisher_id')
    .select(['series.id', 'series.code', 'series.name', ...PUBLISHER_COLUMNS])
    .orderBy('series.name')
    .orderBy('series.id')
    .offset(offset)
    .limit(limit)
    .execute();
  return rows.map(withPublisher);
}

export async function findSeries(db: Kysely<Database>, id: number): Promise<SeriesRow | undefined> {
  const row = await db
    .selectFrom('series')
    .leftJoin('publisher', 'publisher.id', 'series.publisher_id')
    .select(['series.id', 'series.code', 'series.name', 'series.description', ...PUBLISHER_COLUMNS])
    .where('series.id', '=', id)
    .executeTakeFirst();
  return row && withPublisher(row);
}
