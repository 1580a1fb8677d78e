import type { Db } from '../../db/database.js';
import { MAX_BASKET_CARDS } from './gift-cards.service.js';

// At login the guest basket's lines move into the customer's basket (basket's merge.service.ts);
// what the gift cards keep per basket moves with them: the cards put on the basket to pay with,
// and the details of the virtual gift card lines (amount, recipient, message, delivery date).

/** What a move changed, so the merge gives each basket that changed a new version. */
export interface MovedGiftCards {
  /** Cards and virtual card details put on the client's basket. */
  toClient: number;
  /** Cards and virtual card details taken off the guest's basket. */
  offGuest: number;
  /** Cards left on the guest's basket: the client's basket held MAX_BASKET_CARDS. */
  cardsLeftOut: number;
}

/**
 * In the merge's transaction: the guest basket's cards are put on the client's (those it lacks,
 * in the order they were added, while it has fewer than MAX_BASKET_CARDS) and taken off the
 * guest's. A card that does not fit stays on the guest's basket, as a line that does not fit does,
 * for a later merge with room (the merge keeps that basket and tells the shopper); the virtual card details of `movedProductIds` go to the client's basket where it has
 * none for that product (the client's own details win, as its discount code and delivery do).
 */
export async function moveBasketGiftCards(
  trx: Db,
  guestBasketId: number,
  clientBasketId: number,
  movedProductIds: readonly number[],
): Promise<MovedGiftCards> {
  const moved: MovedGiftCards = { toClient: 0, offGuest: 0, cardsLeftOut: 0 };
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
  const leftOut: number[] = [];
  for (const row of guestCards) {
    if (!onClient.has(Number(row.gift_card_id)) && onClient.size >= MAX_BASKET_CARDS) leftOut.push(Number(row.gift_card_id));
    else if (!onClient.has(Number(row.gift_card_id))) {
      const inserted = await trx
        .insertInto('basket_gift_card')
        .values({
          basket_id: clientBasketId,
          gift_card_id: row.gift_card_id,
          added_at: row.added_at,
          seen_balance_cents: row.seen_balance_cents,
        })
        .onConflict((oc) => oc.columns(['basket_id', 'gift_card_id']).doNothing())
        .executeTakeFirst();
      moved.toClient += Number(inserted.numInsertedOrUpdatedRows ?? 0n);
      onClient.add(Number(row.gift_card_id));
    }
  }
  // Off the guest's: the cards now on the client's basket (a card the client had already included).
  let cardsOff = trx.deleteFrom('basket_gift_card').where('basket_id', '=', guestBasketId);
  if (leftOut.length > 0) cardsOff = cardsOff.where('gift_card_id', 'not in', leftOut);
  moved.offGuest += Number((await cardsOff.executeTakeFirst()).numDeletedRows);
  moved.cardsLeftOut = leftOut.length;
  if (movedProductIds.length === 0) return moved;
  const lines = await trx
    .selectFrom('basket_virtual_gift_card')
    .selectAll()
    .where('basket_id', '=', guestBasketId)
    .where('product_id', 'in', movedProductIds)
    .execute();
  for (const line of lines) {
    const inserted = await trx
      .insertInto('basket_virtual_gift_card')
      .values({ ...line, basket_id: clientBasketId })
      .onConflict((oc) => oc.columns(['basket_id', 'product_id']).doNothing())
      .executeTakeFirst();
    moved.toClient += Number(inserted.numInsertedOrUpdatedRows ?? 0n);
  }
  const detailsOff = await trx
    .deleteFrom('basket_virtual_gift_card')
    .where('basket_id', '=', guestBasketId)
    .where('product_id', 'in', movedProductIds)
    .executeTakeFirst();
  moved.offGuest += Number(detailsOff.numDeletedRows);
  return moved;
}
