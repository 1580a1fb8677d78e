import type { Db } from '../../db/database.js';
import { toRfc3339 } from '../../db/time.js';
import { normaliseEmail } from '../../infra/email-address.js';
import type { PersonalDataPart, PersonalDataSubject } from '../../infra/personal-data.js';
import { lastLocalDay } from '../../infra/shop-time.js';
import { isDownloadLine } from './download-lines.js';

// The e-books and audiobooks someone else bought for the person (order_gift_download, by the address the
// buyer gave as the receiver's): what their mail's key shows them, the order's date, store and titles and until
// when the key works, and nothing of the buyer's (name, address, what was paid: the buyer's data). The erasure
// replaces the address, which ends the key and the links made with it.

/** The export holds at most this many, newest first; a note says when there were more. */
const CAP = 1_000;
const CHUNK = 500;

const time = (ms: number | string | bigint) => toRfc3339(Number(ms));

async function exportGiftsReceived(db: Db, subject: PersonalDataSubject) {
  const rows = await db
    .selectFrom('order_gift_download as g')
    .innerJoin('customer_order as o', 'o.id', 'g.order_id')
    .select(['g.order_id', 'g.created_at', 'g.expires_at', 'o.created_at as ordered_at', 'o.store_code'])
    .where('g.receiver_email', '=', normaliseEmail(subject.email))
    .orderBy('g.order_id', 'desc')
    .limit(CAP + 1)
    .execute();
  const truncated = rows.length > CAP;
  const kept = rows.slice(0, CAP);
  const titles = new Map<number, string[]>();
  for (let start = 0; start < kept.length; start += CHUNK) {
    const lines = await db
      .selectFrom('order_line')
      .select(['order_id', 'title', 'product_type', 'is_digital'])
      .where(
        'order_id',
        'in',
        kept.slice(start, start + CHUNK).map((row) => row.order_id),
      )
      .orderBy('order_id')
      .orderBy('position')
      .execute();
    for (const line of lines.filter(isDownloadLine)) {
      const list = titles.get(Number(line.order_id)) ?? [];
      list.push(line.title);
      titles.set(Number(line.order_id), list);
    }
  }
  return {
    items: kept.map((row) => ({
      orderedAt: time(row.ordered_at),
      givenAt: time(row.created_at),
      store: row.store_code,
      titles: titles.get(Number(row.order_id)) ?? [],
      // The last day (in the shop's time zone) the mail's key works; null before that mail was made.
      lastDay: row.expires_at === null ? null : lastLocalDay(Number(row.expires_at)),
    })),
    truncated,
    ...(truncated ? { note: `Only the newest ${CAP} are included; ask customer service for the rest.` } : {}),
  };
}

async function eraseGiftsReceived(trx: Db, subject: PersonalDataSubject) {
  // Their key ends (its address goes). What they bought for someone else keeps its receiver (someone else's data,
  // as a gift card does): that row's address is not theirs.
  await trx
    .updateTable('order_gift_download')
    .set({ receiver_email: subject.erasedEmail })
    .where('receiver_email', '=', normaliseEmail(subject.email))
    .execute();
}

/** The orders module's part of "your data" for what others bought for the person. */
export const giftsReceivedPersonalData: PersonalDataPart = {
  name: 'giftsReceived',
  export: exportGiftsReceived,
  erase: eraseGiftsReceived,
};
