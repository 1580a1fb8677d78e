import type { Db } from '../../db/database.js';
import { MAX_BASKET_CARDS } from './gift-cards.service.js';

// At login the guest basket's lines move into the customer's basket (basket's merge.service.ts);
// what the gift cards keep per basket moves with them: the cards put on the basket to pay with,
// and the details of the virtual gift card lines (amount, recipient, message, delivery date).

/**
 * In the merge's transaction: the guest basket's cards are put on the client's (those it lacks,
 * in the order they were added, while it has fewer than MAX_BASKET_CARDS) and taken off the
 * guest's; the virtual card details of `movedProductIds` go to the client's basket where it has
 * none for that product (the client's own details win, as its discount code and delivery do).
 */
export async function moveBasketGiftCards(trx: Db, guestBasketId: number, clientBasketId: number, movedProductIds: readonly number[]) {
  const [guestCards, clientCards] = await Promise.all([
    trx
      .selectFrom('basket_gift_card')
      .selectAll()
      .where('basket_id', '=', guestBasketId)
      .orderBy('added_at')
      .orderBy('gift_card_id')
      .execute(),
    trx.selectFrom('basket_gift_card').select('gift_card_id').where('basket_id', '=', clientBasketId).execute(),
  ]);
  const onClient = new Set(clientCards.map((row) => Number(row.gift_card_id)));
  for (const row of guestCards) {
    if (!onClient.has(Number(row.gift_card_id)) && onClient.size < MAX_BASKET_CARDS) {
      await trx
        .insertInto('basket_gift_card')
        .values({
          basket_id: clientBasketId,
          gift_card_id: row.gift_card_id,
          added_at: row.added_at,
          seen_balance_cents: row.seen_balance_cents,
        })
        .onConflict((oc) => oc.columns(['basket_id', 'gift_card_id']).doNothing())
        .execute();
      onClient.add(Number(row.gift_card_id));
    }
  }
  await trx.deleteFrom('basket_gift_card').where('basket_id', '=', guestBasketId).execute();
  if (movedProductIds.length === 0) return;
  const lines = await trx
    .selectFrom('basket_virtual_gift_card')
    .selectAll()
    .where('basket_id', '=', guestBasketId)
    .where('product_id', 'in', movedProductIds)
    .execute();
  for (const line of lines) {
    await trx
      .insertInto('basket_virtual_gift_card')
      .values({ ...line, basket_id: clientBasketId })
      .onConflict((oc) => oc.columns(['basket_id', 'product_id']).doNothing())
      .execute();
  }
  await trx
    .deleteFrom('basket_virtual_gift_card')
    .where('basket_id', '=', guestBasketId)
    .where('product_id', 'in', movedProductIds)
    .execute();
}
