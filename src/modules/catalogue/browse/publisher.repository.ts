import type { Kysely } from 'kysely';
import type { Database } from '../../../db/schema.js';
import { countRows, withNamePrefix, type NameFilter } from './browse.repository.js';
import { visibleProduct } from '../visibility.js';

export interface PublisherListItem {
  id: number;
  code: string;
  name: string;
}

export interface PublisherRow extends PublisherListItem {
  description: string | null;
}

/** Publishers of a product the caller may see in the store (publisher_name_idx, product_publisher_idx). */
function publishers(db: Kysely<Database>, filter: NameFilter) {
  const query = db
    .selectFrom('publisher')
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('product as p')
          .select('p.id')
          .whereRef('p.publisher_id', '=', 'publisher.id')
          .where(visibleProduct(filter.storeCode, filter.caller)),
      ),
    );
  return withNamePrefix(db, query, 'publisher.name', filter);
}

export const countPublishers = (db: Kysely<Database>, filter: NameFilter) => countRows(publishers(db, filter));

export function publisherPage(db: Kysely<Database>, filter: NameFilter, offset: number, limit: number): Promise<PublisherListItem[]> {
  return publishers(db, filter)
    .select(['publisher.id', 'publisher.code', 'publisher.name'])
    .orderBy('publisher.name')
    .orderBy('publisher.id')
    .offset(offset)
    .limit(limit)
    .execute();
}

export function findPublisher(db: Kysely<Database>, id: number): Promise<PublisherRow | undefined> {
  return db.selectFrom('publisher').select(['id', 'code', 'name', 'description']).where('id', '=', id).executeTakeFirst();
}
