/**
 * What a customer pays for a product, and the price we show struck through next to it.
 *
 * Money is integer cents. Percentages become integer parts per million and the arithmetic is
 * BigInt, so "round half up" is exact: in floating point 2150 cents less 7% is 1999.4999…, which
 * would round to 1999 instead of 2000.
 */

import type { ProductTypeCode } from '../../db/product-types.js';

export type ProductType = ProductTypeCode;

export type CustomerKind = 'GUEST' | 'SIMPLE' | 'BUSINESS' | 'WHOLESALE';

export interface CampaignPrice {
  customerKind: 'RETAIL' | 'BUSINESS';
  priceCents: number;
  /** Unix ms, inclusive. */
  validFrom?: number;
  /** Unix ms, exclusive. */
  validTo?: number;
}

export interface PricedProduct {
  type: ProductType;
  /** VAT included. */
  shopPriceCents: number;
  /** The publisher's list price, VAT included; 0 or null means none. */
  originalPriceCents?: number | null;
  /** VAT excluded; 0 or null means none. */
  wholesalePriceCents?: number | null;
  vatRatePercent: number;
  campaignPrices?: CampaignPrice[];
}

export interface Customer {
  kind: CustomerKind;
  clientDiscountPercent?: number;
  companyDiscountPercent?: number;
  /** The company's own price for this product, VAT excluded; 0 or null means none. */
  companyCustomPriceCents?: number | null;
}

export interface StoreDiscounts {
  guestDiscountPercent: number;
  loggedInDiscountPercent: number;
}

export type PriceSource =
  'shop' | 'store-discount' | 'client-discount' | 'campaign' | 'company-discount' | 'wholesale' | 'custom' | 'shop-excl-vat';

export interface Price {
  priceCents: number;
  strikeThroughCents: number | null;
  vatIncluded: boolean;
  /** Against the strike-through price, whole percent (half up); 0 without one. */
  discountPercent: number;
  source: PriceSource;
}

const PPM = 1_000_000n;

// A gift card is money in another form: selling one below face value would be handing out cash.
const GIFT_CARDS: ReadonlySet<string> = new Set<ProductType>(['GIFT_CARD', 'VIRTUAL_GIFT_CARD']);

/**
 * Whether a customer of this kind is shown discounts at all (a strike-through price and its percent): retail
 * customers are; business and wholesale prices have no strike-through (discountPercent is always 0).
 */
export const showsDiscounts = (kind: CustomerKind): boolean => kind === 'GUEST' || kind === 'SIMPLE';

/** Whether a product of this type is a gift card: sold at face value, no discount of any kind (a basket's code neither). */
export const isGiftCard = (type: string): boolean => GIFT_CARDS.has(type);

export function priceFor(product: PricedProduct, customer: Customer, store: StoreDiscounts, now: number): Price {
  validate(product, customer, store, now);
  if (isGiftCard(product.type)) return giftCardPrice(product, customer);
  switch (customer.kind) {
    case 'GUEST':
    case 'SIMPLE':
      return retailPrice(product, customer, store, now);
    case 'BUSINESS':
      return businessPrice(product, customer, now);
    case 'WHOLESALE':
      return wholesalePrice(product, customer);
    default:
      // Customers come from the database; an unknown kind must not silently get some price.
      throw new RangeError(`unknown customer kind ${String((customer as { kind: unknown }).kind)}`);
  }
}

/** Cents as the JSON number the clients expect: 1299 -> 12.99. */
export function toWireMoney(cents: number): number {
  // Negative amounts are allowed here (refunds, credit notes); fractions of a cent are not.
  if (!Number.isSafeInteger(cents)) throw new RangeError(`money must be whole cents, got ${cents}`);
  // An integer divided by 100 is the double nearest to the two-decimal value, which is what JSON prints.
  return cents / 100;
}

function retailPrice(product: PricedProduct, customer: Customer, store: StoreDiscounts, now: number): Price {
  const shop = product.shopPriceCents;
  let price = shop;
  let source: PriceSource = 'shop';
  const discount = bestRetailDiscount(product, customer, store);
  if (discount !== null) {
    const discounted = percentOff(shop, discount.percent);
    // A discount that rounds away to nothing (1 cent less 10%) is no discount: no strike-through.
    if (discounted < shop) {
      price = discounted;
      source = discount.source;
    }
  }
  const campaign = lowestCampaignPrice(product, 'RETAIL', now);
  // Only a strictly lower campaign wins; on a tie the price is the same and the discount stays named.
  if (campaign !== null && campaign < price) {
    price = campaign;
    source = 'campaign';
  }
  const strikeThrough = source === 'shop' ? listPrice(product) : shop;
  if (strikeThrough === null || strikeThrough <= price) return retail(price, null, 0, source);
  return retail(price, strikeThrough, ratioPercent(strikeThrough - price, strikeThrough), source);
}

/** Discounts never stack: the single highest one applies. */
function bestRetailDiscount(
  product: PricedProduct,
  customer: Customer,
  store: StoreDiscounts,
): { percent: number; source: 'store-discount' | 'client-discount' } | null {
  // The domain notes keep e-books out of the store-wide defaults only; a discount agreed with
  // one client is a personal deal, so it still applies to e-books.
  const storePercent =
    product.type === 'EBOOK' ? 0 : customer.kind === 'GUEST' ? store.guestDiscountPercent : store.loggedInDiscountPercent;
  // Only a logged-in retail client has a client discount of their own; a guest is nobody in particular.
  const clientPercent = customer.kind === 'SIMPLE' ? (customer.clientDiscountPercent ?? 0) : 0;
  // On a tie the client's discount is named: the price is the same and "your discount" is the truer story.
  if (clientPercent >= storePercent) return clientPercent > 0 ? { percent: clientPercent, source: 'client-discount' } : null;
  return { percent: storePercent, source: 'store-discount' };
}

function businessPrice(product: PricedProduct, customer: Customer, now: number): Price {
  const shop = product.shopPriceCents;
  let price = shop;
  let source: PriceSource = 'shop';
  // "Company discount off the list price, unless the product's own discount is larger" is the
  // lower of the shop price and the discounted list price, since shop = list less its own
  // discount; at equal discounts the two are the same cents and the shop price is named.
  const discounted = percentOff(listPrice(product) ?? shop, customer.companyDiscountPercent ?? 0);
  if (discounted < shop) {
    price = discounted;
    source = 'company-discount';
  }
  const campaign = lowestCampaignPrice(product, 'BUSINESS', now);
  if (campaign !== null && campaign < price) {
    price = campaign;
    source = 'campaign';
  }
  return { priceCents: price, strikeThroughCents: null, vatIncluded: true, discountPercent: 0, source };
}

function wholesalePrice(product: PricedProduct, customer: Customer): Price {
  const custom = customer.companyCustomPriceCents ?? 0;
  if (custom > 0) return wholesale(custom, 'custom');
  const listed = product.wholesalePriceCents ?? 0;
  if (listed > 0) return wholesale(listed, 'wholesale');
  return wholesale(excludingVat(product.shopPriceCents, product.vatRatePercent), 'shop-excl-vat');
}

function giftCardPrice(product: PricedProduct, customer: Customer): Price {
  // Face value for everyone, and no strike-through even if the data carries a list price: a
  // struck-through price would advertise a discount we never give. Wholesale still sees prices
  // without VAT, which for a multi-purpose voucher (VAT 0) is the face value again.
  if (customer.kind === 'WHOLESALE') {
    return wholesale(excludingVat(product.shopPriceCents, product.vatRatePercent), 'shop-excl-vat');
  }
  return retail(product.shopPriceCents, null, 0, 'shop');
}

function retail(priceCents: number, strikeThroughCents: number | null, discountPercent: number, source: PriceSource): Price {
  return { priceCents, strikeThroughCents, vatIncluded: true, discountPercent, source };
}

function wholesale(priceCents: number, source: PriceSource): Price {
  return { priceCents, strikeThroughCents: null, vatIncluded: false, discountPercent: 0, source };
}

/**
 * The list price when it is worth mentioning. One at or below the shop price is no discount to
 * show, and as a base for the company discount it would also wipe out the shop's markup over the
 * list price (imports), so it is ignored and the shop price stands in.
 */
function listPrice(product: PricedProduct): number | null {
  const original = product.originalPriceCents ?? 0;
  return original > product.shopPriceCents ? original : null;
}

/** Whether a campaign's window holds at `now`: from inclusive, to exclusive; a missing end is open. */
export function campaignRunsAt(window: { validFrom?: number | null; validTo?: number | null }, now: number): boolean {
  return now >= (window.validFrom ?? -Infinity) && now < (window.validTo ?? Infinity);
}

function lowestCampaignPrice(product: PricedProduct, kind: CampaignPrice['customerKind'], now: number): number | null {
  let lowest: number | null = null;
  for (const campaign of product.campaignPrices ?? []) {
    if (campaign.customerKind !== kind) continue;
    if (!campaignRunsAt(campaign, now)) continue;
    if (lowest === null || campaign.priceCents < lowest) lowest = campaign.priceCents;
  }
  return lowest;
}

function percentOff(cents: number, percent: number): number {
  return divideHalfUp(BigInt(cents) * (PPM - partsPerMillion(percent)), PPM);
}

function excludingVat(cents: number, vatRatePercent: number): number {
  return divideHalfUp(BigInt(cents) * PPM, PPM + partsPerMillion(vatRatePercent));
}

function ratioPercent(part: number, whole: number): number {
  return divideHalfUp(BigInt(part) * 100n, BigInt(whole));
}

// Four decimals of a percent are kept; nobody configures a finer discount than that.
function partsPerMillion(percent: number): bigint {
  return BigInt(Math.round(percent * 10_000));
}

/** numerator / denominator rounded half up; both non-negative, denominator positive. */
function divideHalfUp(numerator: bigint, denominator: bigint): number {
  return Number((2n * numerator + denominator) / (2n * denominator));
}

// Bad data fails loudly instead of becoming a negative or fractional price. Everything is
// checked up front, used on this path or not, so a broken record fails for every customer alike.
function validate(product: PricedProduct, customer: Customer, store: StoreDiscounts, now: number): void {
  if (!Number.isFinite(now)) throw new RangeError(`now must be a time in Unix ms, got ${now}`);
  checkCents('shopPriceCents', product.shopPriceCents, true);
  checkCents('originalPriceCents', product.originalPriceCents);
  checkCents('wholesalePriceCents', product.wholesalePriceCents);
  checkCents('companyCustomPriceCents', customer.companyCustomPriceCents);
  checkPercent('vatRatePercent', product.vatRatePercent, true);
  checkPercent('guestDiscountPercent', store.guestDiscountPercent, true);
  checkPercent('loggedInDiscountPercent', store.loggedInDiscountPercent, true);
  checkPercent('clientDiscountPercent', customer.clientDiscountPercent);
  checkPercent('companyDiscountPercent', customer.companyDiscountPercent);
  for (const campaign of product.campaignPrices ?? []) {
    checkCents('campaign priceCents', campaign.priceCents, true);
    for (const bound of [campaign.validFrom, campaign.validTo]) {
      if (bound != null && !Number.isFinite(bound)) throw new RangeError(`campaign validity must be Unix ms, got ${bound}`);
    }
  }
}

function checkCents(name: string, cents: number | null | undefined, required = false): void {
  if (cents == null && !required) return;
  if (typeof cents !== 'number' || !Number.isSafeInteger(cents) || cents < 0)
    throw new RangeError(`${name} must be a non-negative whole number of cents, got ${cents}`);
}

function checkPercent(name: string, percent: number | undefined, required = false): void {
  if (percent === undefined && !required) return;
  if (typeof percent !== 'number' || !Number.isFinite(percent) || percent < 0 || percent > 100)
    throw new RangeError(`${name} must be within 0..100, got ${percent}`);
}
