import type { Db } from '../../db/database.js';
import { toRfc3339 } from '../../db/time.js';
import { clientCodesOf, type PersonalDataPart, type PersonalDataSubject } from '../../infra/personal-data.js';

// Session actions (views, wishlist and basket adds) recorded with the client's code. A client may
// have very many: the export reads at most SESSION_ACTIONS_CAP, newest first, in pages, and says
// when there were more. The erasure deletes them all.

export const SESSION_ACTIONS_CAP = 10_000;
const PAGE = 1_000;

async function exportSessionActions(db: Db, subject: PersonalDataSubject) {
  const codes = clientCodesOf(subject);
  const items: Array<{ action: string; productCode: string; store: string; sessionId: string; at: string }> = [];
  let before: number | undefined;
  let more = codes.length > 0;
  while (more && items.length < SESSION_ACTIONS_CAP) {
    let query = db
      .selectFrom('session_action')
      .select(['id', 'action_type', 'product_code', 'store_code', 'session_id', 'created_at'])
      .where('client_code', 'in', codes)
      .orderBy('id', 'desc')
      .limit(PAGE);
    if (before !== undefined) query = query.where('id', '<', before);
    const rows = await query.execute();
    for (const row of rows.slice(0, SESSION_ACTIONS_CAP - items.length)) {
      items.push({
        action: row.action_type,
        productCode: row.product_code,
        store: row.store_code,
        sessionId: row.session_id,
        at: toRfc3339(Number(row.created_at)),
      });
      before = Number(row.id);
    }
    more = rows.length === PAGE;
  }
  // Full: is anything older than the last row taken?
  const truncated =
    items.length >= SESSION_ACTIONS_CAP &&
    (await db
      .selectFrom('session_action')
      .select('id')
      .where('client_code', 'in', codes)
      .where('id', '<', before!)
      .limit(1)
      .executeTakeFirst()) !== undefined;
  return {
    items,
    truncated,
    ...(truncated ? { note: `Only the newest ${SESSION_ACTIONS_CAP} session actions are included; older ones are held as well.` } : {}),
  };
}

async function eraseSessionActions(trx: Db, subject: PersonalDataSubject) {
  const codes = clientCodesOf(subject);
  if (codes.length === 0) return;
  await trx.deleteFrom('session_action').where('client_code', 'in', codes).execute();
}

/** The tracking module's part of "your data". */
export const trackingPersonalData: PersonalDataPart = { name: 'sessionActions', export: exportSessionActions, erase: eraseSessionActions };
