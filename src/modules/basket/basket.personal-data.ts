import type { Db } from '../../db/database.js';
import { lockedOnPostgres } from '../../db/row-lock.js';
import { toRfc3339 } from '../../db/time.js';
import { deleteReminderRecipient, lastReminderOf } from './basket-reminders.repository.js';
import { virtualCardLines, type VirtualCardLine } from '../gift-cards/index.js';
import { giftCardWire } from './basket.wire.js';
import { accountIdsOf, type PersonalDataPart, type PersonalDataSubject } from '../../infra/personal-data.js';

// A client's baskets (one per account and store) and their lines (a virtual gift card's with the
// details the person gave it: recipient, message, their name), and, as a part of its own (the
// baskets' part keeps its shape), when the person was last sent a basket reminder (the throttle's
// row, basket-reminders.ts); the erasure deletes them.

async function exportBaskets(db: Db, subject: PersonalDataSubject) {
  const ids = accountIdsOf(subject);
  if (ids.length === 0) return [];
  const baskets = await db.selectFrom('basket').select(['id', 'store_code', 'updated_at']).where('client_account_id', 'in', ids).execute();
  if (baskets.length === 0) return [];
  const lines = await db
    .selectFrom('basket_line')
    .innerJoin('product', 'product.id', 'basket_line.product_id')
    .select(['basket_line.basket_id', 'basket_line.product_id', 'product.code', 'basket_line.quantity', 'basket_line.added_at'])
    .where(
      'basket_line.basket_id',
      'in',
      baskets.map((basket) => basket.id),
    )
    .orderBy('basket_line.added_at')
    .execute();
  const cards = new Map<number, Map<number, VirtualCardLine>>();
  for (const basket of baskets) cards.set(Number(basket.id), await virtualCardLines(db, Number(basket.id)));
  return baskets.map((basket) => ({
    store: basket.store_code,
    updatedAt: toRfc3339(Number(basket.updated_at)),
    lines: lines
      .filter((line) => Number(line.basket_id) === Number(basket.id))
      .map((line) => {
        const card = cards.get(Number(basket.id))?.get(Number(line.product_id));
        return {
          productId: Number(line.product_id),
          productCode: line.code,
          quantity: line.quantity,
          addedAt: toRfc3339(Number(line.added_at)),
          ...(card ? { giftCard: giftCardWire(card) } : {}),
        };
      }),
  }));
}

/**
 * The baskets' locks first, then their lines, then the baskets: the order every basket writer takes
 * them in. Deleting the lines first held them while waiting for a basket a writer held, and the
 * writer then waited for a line (a deadlock, a 500, when a checkout ran at once).
 */
async function eraseBaskets(trx: Db, subject: PersonalDataSubject) {
  const ids = accountIdsOf(subject);
  if (ids.length === 0) return;
  const baskets = await lockedOnPostgres(
    trx,
    trx.selectFrom('basket').select('id').where('client_account_id', 'in', ids).orderBy('id'),
  ).execute();
  if (baskets.length === 0) return;
  const basketIds = baskets.map((basket) => basket.id);
  await trx.deleteFrom('basket_line').where('basket_id', 'in', basketIds).execute();
  await trx.deleteFrom('basket').where('id', 'in', basketIds).execute();
}

/** The basket module's part of "your data". */
export const basketPersonalData: PersonalDataPart = { name: 'baskets', export: exportBaskets, erase: eraseBaskets };

/** The basket reminders' part of "your data": when the person was last sent one (null: never). */
export const basketReminderPersonalData: PersonalDataPart = {
  name: 'basketReminders',
  export: async (db, subject) => {
    const last = await lastReminderOf(db, subject.userId);
    return { lastReminderAt: last === undefined ? null : toRfc3339(last) };
  },
  erase: (trx, subject) => deleteReminderRecipient(trx, subject.userId),
};
