import type { Db } from '../../db/database.js';
import { toRfc3339 } from '../../db/time.js';
import { clientCodesOf, ERASED_MARKER, type PersonalDataPart, type PersonalDataSubject } from '../../infra/personal-data.js';
import { movedTo } from './online-sales.js';

// The sales history the ERP sends (online and shop purchases by client code). Like orders, it is
// kept for accounting; the erasure takes out what points at the person: the city and the session.
// The export's client-account rows read gender and birthday from app_user, which accounts clears.

const HISTORY_CAP = 5_000;

async function exportSalesHistory(db: Db, subject: PersonalDataSubject) {
  const codes = clientCodesOf(subject);
  if (codes.length === 0) return { items: [], truncated: false };
  const rows = await db
    .selectFrom('sales_history')
    .select(['id', 'order_code', 'client_code', 'source_type', 'city', 'delivery_method', 'shop_code', 'created_at', 'created_nav'])
    .where('client_code', 'in', codes)
    .orderBy('id', 'desc')
    .limit(HISTORY_CAP + 1)
    .execute();
  const truncated = rows.length > HISTORY_CAP;
  const kept = rows.slice(0, HISTORY_CAP);
  const items = await itemsOf(
    db,
    kept.map((row) => Number(row.id)),
  );
  return {
    items: kept.map((row) => ({
      orderCode: row.order_code,
      clientCode: row.client_code,
      source: row.source_type,
      city: row.city,
      deliveryMethod: row.delivery_method,
      shopCode: row.shop_code,
      createdAt: toRfc3339(Number(row.created_nav ?? row.created_at)),
      productCodes: items.get(Number(row.id)) ?? [],
    })),
    truncated,
    ...(truncated ? { note: `Only the newest ${HISTORY_CAP} purchases are included.` } : {}),
  };
}

async function itemsOf(db: Db, ids: number[]): Promise<Map<number, string[]>> {
  const byId = new Map<number, string[]>();
  for (let start = 0; start < ids.length; start += 500) {
    const rows = await db
      .selectFrom('sales_history_item')
      .select(['sales_history_id', 'product_code'])
      .where('sales_history_id', 'in', ids.slice(start, start + 500))
      .orderBy('sales_history_id')
      .orderBy('position')
      .execute();
    for (const row of rows) {
      const list = byId.get(Number(row.sales_history_id)) ?? [];
      list.push(row.product_code);
      byId.set(Number(row.sales_history_id), list);
    }
  }
  return byId;
}

async function eraseSalesHistory(trx: Db, subject: PersonalDataSubject, now: number) {
  const codes = clientCodesOf(subject);
  if (codes.length === 0) return;
  // The rows' update time moves: the export's updatedFrom tells the analyst of the blanking.
  await trx
    .updateTable('sales_history')
    .set({ city: ERASED_MARKER, session_id: null, updated_at: movedTo(now) })
    .where('client_code', 'in', codes)
    .execute();
}

/** The data export's part of "your data": the sales history. */
export const dataExportPersonalData: PersonalDataPart = { name: 'salesHistory', export: exportSalesHistory, erase: eraseSalesHistory };
