import type { Db } from '../../db/database.js';
import { toRfc3339 } from '../../db/time.js';
import { accountIdsOf, type PersonalDataPart, type PersonalDataSubject } from '../../infra/personal-data.js';

// Download entitlements (bought e-books and audiobooks) and the downloads used of each. They stay
// with their orders on erasure (accounting); the erased account can no longer log in to use them.

async function exportEntitlements(db: Db, subject: PersonalDataSubject) {
  const ids = accountIdsOf(subject);
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('order_entitlement as e')
    .innerJoin('customer_order as o', 'o.id', 'e.order_id')
    .innerJoin('product as p', 'p.id', 'e.product_id')
    .leftJoin('download_count as c', (join) => join.onRef('c.order_id', '=', 'e.order_id').onRef('c.product_id', '=', 'e.product_id'))
    .select(['o.code as order_code', 'e.product_id', 'p.code as product_code', 'p.name', 'c.used', 'e.created_at'])
    .where('e.client_account_id', 'in', ids)
    .orderBy('e.created_at', 'desc')
    .limit(10_000)
    .execute();
  return rows.map((row) => ({
    orderCode: row.order_code,
    productId: Number(row.product_id),
    productCode: row.product_code,
    title: row.name,
    downloadsUsed: Number(row.used ?? 0),
    since: toRfc3339(Number(row.created_at)),
  }));
}

/** The downloads module's part of "your data"; nothing of it is erased (see above). */
export const downloadsPersonalData: PersonalDataPart = { name: 'downloads', export: exportEntitlements, erase: async () => {} };
