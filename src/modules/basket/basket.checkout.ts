import type { Db } from '../../db/database.js';
import { hashToken } from '../../infra/tokens.js';
import { clearBasket, GUEST_BASKET_TTL_MS, type BasketOwner } from './basket.service.js';
import { findClientBasket, findGuestBasket, touchBasket, type BasketRow } from './basket.repository.js';
import { needsDelivery, priceBasket, type BasketContext, type PricedBasket, type PricedLine } from './basket-pricing.js';
import { readBasketProducts } from './basket-lines.repository.js';
import { chooseDelivery, type DeliveryChoice } from './delivery/delivery.service.js';
import { shopCodeOf } from './delivery/delivery.repository.js';
import { invalidField } from '../../infra/domain-error.js';
import { shipsOnlyFromStock, isDigitalProduct } from './basket-rules.js';
import { isVisibleTo } from '../catalogue/index.js';
import { sql } from 'kysely';

// What checkout does with a basket, inside checkout's own transaction: find the owner's basket
// and lock it (two checkouts of one basket queue up), set the delivery the form chose with the
// basket's own rules, price it afresh, and empty it once the order holds its lines.

export { shipsOnlyFromStock, isDigitalProduct, needsDelivery };
export { takesAddressCountry } from './delivery/delivery.rules.js';
export { DELIVERY_REASONS } from './discount-codes/discount-code.rules.js';
export type { PricedBasket, PricedLine, BasketContext } from './basket-pricing.js';
export type { BasketOwner } from './basket.service.js';
export type { BasketRow } from './basket.repository.js';
export type { DeliveryChoice };

/** The owner's basket, locked to the transaction; undefined when there is none (never created here). */
export function lockBasketForCheckout(trx: Db, owner: BasketOwner, storeCode: string, now: number): Promise<BasketRow | undefined> {
  return ownersBasket(trx, owner, storeCode, now, true);
}

/** The owner's basket as it is, priced (none: the empty basket), for the checkout form. */
export async function currentBasket(db: Db, context: BasketContext, owner: BasketOwner): Promise<PricedBasket> {
  return priceBasket(db, context, await ownersBasket(db, owner, context.store.code, context.now, false));
}

function ownersBasket(db: Db, owner: BasketOwner, storeCode: string, now: number, lock: boolean) {
  if (owner.kind === 'client') return findClientBasket(db, owner.clientAccountId, storeCode, lock);
  if (owner.token === undefined) return Promise.resolve(undefined);
  return findGuestBasket(db, hashToken(owner.token), storeCode, now - GUEST_BASKET_TTL_MS, lock);
}

/**
 * Sets the delivery choice on the basket (every rule of PUT /basket/delivery) and prices it. A form
 * that names no delivery takes the one chosen on the basket (PUT /basket/delivery), put through
 * the same rules again: a method switched off or no longer priced, a machine or shop gone, a basket the method no longer
 * carries is the same 422 on the same field as a form naming it, never a different price. A basket
 * with nothing to ship needs none: a choice on it that no longer holds is dropped, not refused.
 */
export async function priceForCheckout(trx: Db, context: BasketContext, basket: BasketRow, choice: DeliveryChoice | null) {
  if (choice !== null) return priceBasket(trx, context, await chooseDelivery(trx, context, basket, choice));
  const priced = await priceBasket(trx, context, basket);
  if (basket.delivery_method_id === null) return priced;
  if (!needsDelivery(priced)) {
    if (priced.delivery?.offered) return priced;
    return priceBasket(trx, context, await dropDelivery(trx, basket, context.now));
  }
  const stored = await storedChoice(trx, basket, basket.delivery_method_id);
  const chosen = await chooseDelivery(trx, context, basket, stored);
  // A method with one shop takes it when none is named; a basket whose shop was deleted named one.
  if (stored.shopCode === undefined && chosen.delivery_shop_id !== null) throw invalidField('shopCode', 'basket.shopRequired');
  return priceBasket(trx, context, chosen);
}

/** The basket's delivery choice as PUT /basket/delivery would name it (its shop by code, whatever the shop's state). */
async function storedChoice(trx: Db, basket: BasketRow, deliveryMethodId: number): Promise<DeliveryChoice> {
  return {
    deliveryMethodId,
    parcelMachineId: basket.parcel_machine_id === null ? undefined : Number(basket.parcel_machine_id),
    shopCode: basket.delivery_shop_id === null ? undefined : await shopCodeOf(trx, Number(basket.delivery_shop_id)),
    countryCode: basket.delivery_country_code ?? undefined,
  };
}

const dropDelivery = (trx: Db, basket: BasketRow, now: number) =>
  touchBasket(trx, basket, now, { delivery_method_id: null, parcel_machine_id: null, delivery_shop_id: null, delivery_country_code: null });

/**
 * Those of the priced lines whose product cannot be ordered now (deactivated, hidden from the caller,
 * out of the store, permanently out of stock; its stock aside), read again in the checkout's
 * transaction. Checkout asks once it has taken its products' rows (a line's stock held, or the row in
 * share mode for a line that holds no stock, a digital product): on PostgreSQL a lock that waited for
 * a writer of the product (a feed's deactivation batch) is taken on the row as that writer committed
 * it, while the basket was priced from the row before (test/orders/checkout-of-deactivated-product.test.ts).
 * The product rows stay as read here until the order commits: a writer of them waits for it (so does
 * a change of a product's stores, `product_store`: the products feed's line takes the product's row first).
 */
export async function linesUnavailableNow(trx: Db, context: BasketContext, lines: readonly PricedLine[]): Promise<PricedLine[]> {
  const products = await readBasketProducts(
    trx,
    context.store.code,
    lines.map((line) => line.product.id),
  );
  // Not the stock: the holds judged it (and the product's free stock read now has them taken off).
  return lines.filter((line) => {
    const product = products.get(line.product.id);
    return !product || !isVisibleTo(product, context.caller) || product.availability === 'PERMANENTLY_OUT_OF_STOCK';
  });
}

/** Empties the basket after its order was made: no lines, no code, no delivery; a new version. */
export const emptyBasketAfterCheckout = clearBasket;

/** Gives back the use of a code its order counted: the order will not be paid (never fewer than none). */
export async function giveBackDiscountCodeUse(trx: Db, codeId: number): Promise<void> {
  await trx
    .updateTable('discount_code')
    .set({ used_count: sql`case when used_count > 0 then used_count - 1 else 0 end` })
    .where('id', '=', codeId)
    .execute();
}

/**
 * Takes the use again for an order that was given up and is paid after all (a late settle): the
 * money is ours and the order goes on with its price, so it is counted past the code's limit too.
 */
export async function retakeDiscountCodeUse(trx: Db, codeId: number): Promise<void> {
  await trx
    .updateTable('discount_code')
    .set({ used_count: sql`used_count + 1` })
    .where('id', '=', codeId)
    .execute();
}

/** Counts one use of a discount code unless it is used up; false when it was (a race for the last use). */
export async function countDiscountCodeUse(trx: Db, codeId: number): Promise<boolean> {
  const counted = await trx
    .updateTable('discount_code')
    .set({ used_count: sql`used_count + 1` })
    .where('id', '=', codeId)
    .where((eb) => eb.or([eb('max_uses', 'is', null), eb('used_count', '<', eb.ref('max_uses'))]))
    .executeTakeFirst();
  return Number(counted.numUpdatedRows) > 0;
}
