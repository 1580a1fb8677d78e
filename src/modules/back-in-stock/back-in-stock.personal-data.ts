import type { Db } from '../../db/database.js';
import { toRfc3339 } from '../../db/time.js';
import { accountIdsOf, type PersonalDataPart, type PersonalDataSubject } from '../../infra/personal-data.js';

// Back-in-stock requests of the person: those of their client accounts and those made as a guest
// with their login email. Requests live 14 days and are rate-limited, so they are few; the export
// still caps them. The erasure deletes them.

const EXPORT_CAP = 1000;

function requestsOf(db: Db, subject: PersonalDataSubject) {
  const ids = accountIdsOf(subject);
  return db
    .selectFrom('back_in_stock_request')
    .where((eb) =>
      ids.length > 0 ? eb.or([eb('client_account_id', 'in', ids), eb('email', '=', subject.email)]) : eb('email', '=', subject.email),
    );
}

async function exportRequests(db: Db, subject: PersonalDataSubject) {
  const rows = await requestsOf(db, subject)
    .innerJoin('product', 'product.id', 'back_in_stock_request.product_id')
    .select([
      'back_in_stock_request.store_code',
      'product.code',
      'back_in_stock_request.email',
      'back_in_stock_request.language',
      'back_in_stock_request.created_at',
      'back_in_stock_request.expires_at',
      'back_in_stock_request.notified_at',
    ])
    .orderBy('back_in_stock_request.created_at', 'desc')
    .limit(EXPORT_CAP)
    .execute();
  return rows.map((row) => ({
    store: row.store_code,
    productCode: row.code,
    email: row.email,
    language: row.language,
    createdAt: toRfc3339(Number(row.created_at)),
    expiresAt: toRfc3339(Number(row.expires_at)),
    notifiedAt: row.notified_at === null ? null : toRfc3339(Number(row.notified_at)),
  }));
}

async function eraseRequests(trx: Db, subject: PersonalDataSubject) {
  const ids = accountIdsOf(subject);
  await trx
    .deleteFrom('back_in_stock_request')
    .where((eb) =>
      ids.length > 0 ? eb.or([eb('client_account_id', 'in', ids), eb('email', '=', subject.email)]) : eb('email', '=', subject.email),
    )
    .execute();
}

/** The back-in-stock module's part of "your data". */
export const backInStockPersonalData: PersonalDataPart = { name: 'backInStockRequests', export: exportRequests, erase: eraseRequests };
