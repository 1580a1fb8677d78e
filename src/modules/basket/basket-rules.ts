import { invalidField } from '../../infra/domain-error.js';
import type { BasketProduct } from './basket-products.repository.js';

// The basket's limits. Quantity is a whole number from 1 to 999 (the schemas say so too); at
// most 100 lines; a digital product (e-book, audiobook, virtual gift card, anything delivered as
// a download) at most 1; an item that can only ship from our stock at most its web stock.
// Preorders, coming-soon items and items ordered in from the supplier (2-4 weeks) are not
// limited by stock.

export const MAX_QUANTITY = 999;
export const MAX_LINES = 100;

const DIGITAL_TYPES: ReadonlySet<string> = new Set(['EBOOK', 'AUDIOBOOK', 'VIRTUAL_GIFT_CARD']);
// Printed on demand: never out of stock.
const MADE_TO_ORDER: ReadonlySet<string> = new Set(['GIFT_CARD']);

export function isDigitalProduct(product: Pick<BasketProduct, 'type' | 'deliveryTime'>): boolean {
  return DIGITAL_TYPES.has(product.type) || product.deliveryTime === 'INSTANT_DOWNLOAD';
}

/** Whether the item can only be shipped from the shops' web stock. */
export function shipsOnlyFromStock(product: BasketProduct): boolean {
  if (isDigitalProduct(product) || MADE_TO_ORDER.has(product.type)) return false;
  if (product.availability === 'COMING_SOON' || product.deliveryTime === 'PREORDER' || product.deliveryTime === 'WEEKS_2_4') return false;
  return true;
}

/** The most of the product one basket may hold now; 0 when it cannot be ordered at all. */
export function maxOrderable(product: BasketProduct): number {
  if (product.availability === 'PERMANENTLY_OUT_OF_STOCK') return 0;
  if (isDigitalProduct(product)) return 1;
  if (shipsOnlyFromStock(product)) return Math.max(0, Math.min(MAX_QUANTITY, product.webStock));
  return MAX_QUANTITY;
}

/** A 422 on `quantity` when the basket would hold more of the product than allowed. */
export function checkQuantity(product: BasketProduct, quantity: number): void {
  if (quantity <= MAX_QUANTITY && quantity <= maxOrderable(product)) return;
  if (isDigitalProduct(product)) throw invalidField('quantity', 'basket.digitalOne');
  if (quantity > MAX_QUANTITY) throw invalidField('quantity', 'basket.quantityMax', { max: MAX_QUANTITY });
  throw invalidField('quantity', 'basket.stockLimit', { stock: Math.max(0, product.webStock) });
}
