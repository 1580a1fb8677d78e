import type { Db } from '../../db/database.js';
import { toRfc3339 } from '../../db/time.js';
import { normaliseEmail } from '../../infra/email-address.js';
import { accountIdsOf, type PersonalDataPart, type PersonalDataSubject } from '../../infra/personal-data.js';

// Download entitlements (bought e-books and audiobooks) and the downloads used of each: the person's
// accounts' purchases, and those of the guest orders billed to their email, which "your data" lists
// as theirs (orders.personal-data.ts, the same rule) and whose files a guest downloads from the order
// (GET /order/{code}/download). They stay with their orders on erasure (accounting); the erased
// account can no longer log in to use them, and a guest order stripped by the erasure gives none
// (order-downloads.routes.ts, and openDownload for a link made before).

const CAP = 10_000;

function entitlements(db: Db) {
  return db
    .selectFrom('order_entitlement as e')
    .innerJoin('customer_order as o', 'o.id', 'e.order_id')
    .innerJoin('product as p', 'p.id', 'e.product_id')
    .leftJoin('download_count as c', (join) => join.onRef('c.order_id', '=', 'e.order_id').onRef('c.product_id', '=', 'e.product_id'))
    .select(['o.code as order_code', 'e.product_id', 'p.code as product_code', 'p.name', 'c.used', 'e.created_at'])
    .orderBy('e.created_at', 'desc')
    .limit(CAP);
}

async function exportEntitlements(db: Db, subject: PersonalDataSubject) {
  const ids = accountIdsOf(subject);
  // Two reads, each along its own index (the accounts' entitlements; the guest orders by billing email).
  const [own, guest] = await Promise.all([
    ids.length === 0 ? [] : entitlements(db).where('e.client_account_id', 'in', ids).execute(),
    entitlements(db).where('o.client_account_id', 'is', null).where('o.billing_email', '=', normaliseEmail(subject.email)).execute(),
  ]);
  const rows = [...own, ...guest].sort((a, b) => Number(b.created_at) - Number(a.created_at)).slice(0, CAP);
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
