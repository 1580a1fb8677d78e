import type { Db } from '../../db/database.js';
import type { Language } from '../../i18n/index.js';
import { isVisibleTo, pricingCustomer, type Caller } from '../catalogue/index.js';
import { isGiftCard, priceFor, type Price, type StoreDiscounts } from '../pricing/index.js';
import { readCompanyPrices, readProductCategoryCodes, type BasketProduct } from './basket-products.repository.js';
import { buildLineQueries, type BasketLine, type LineReader, type ProductsReader } from './basket-lines.repository.js';
import type { BasketLineRow, BasketRow } from './basket.repository.js';
import { sumWithVat, vatOfGross, vatOfNet } from './basket-money.js';
import { deliveryMethodOf, findParcelMachine } from './delivery/delivery.repository.js';
import {
  choiceStillHolds,
  deliveryCost,
  HEAVY_BASKET_GRAMS,
  inService,
  isOffered,
  type DeliveryMethod,
  type OfferedMethod,
} from './delivery/delivery.rules.js';
import { discountCodeById } from './discount-codes/discount-code.repository.js';
import {
  codeApplies,
  evaluateCode,
  freeDeliveryReason,
  type CodeLine,
  type CodeReason,
  type DiscountCode,
} from './discount-codes/discount-code.rules.js';
import { isDigitalProduct, maxOrderable } from './basket-rules.js';
import { shareOverCards, virtualCardLines, type BasketCardsReader, type CardShare, type VirtualCardLine } from '../gift-cards/index.js';

// A basket priced for its caller from current data, in cents: every read and every write answer
// is this, worked out afresh in the caller's transaction. Prices come from the one pricing module
// exactly as the catalogue's cards (priceFor with the caller's customer and the store's
// discounts); visibility from the catalogue's one rule.

/** Who the basket is priced for, in which store, language and at what time. */
export interface BasketContext {
  caller: Caller;
  store: StoreDiscounts & { code: string };
  language: Language;
  now: number;
}

export type LineNotice = { code: 'UNAVAILABLE' } | { code: 'QUANTITY_CUT'; max: number } | { code: 'PRICE_CHANGED'; fromCents: number };

export interface PricedLine {
  line: BasketLineRow;
  product: BasketProduct;
  price: Price;
  available: boolean;
  /** What may be ordered now (0 when unavailable). */
  maxQuantity: number;
  /** The stored quantity, cut to maxQuantity. */
  quantity: number;
  totalCents: number;
  discountCents: number;
  notice: LineNotice | null;
  /** A virtual gift card line's details (its amount is the line's price); null for other lines. */
  virtualCard: VirtualCardLine | null;
}

export interface PricedBasket {
  basket: BasketRow | undefined;
  lines: PricedLine[];
  itemCount: number;
  subtotalCents: number;
  /**
   * The basket's code: what it takes off the lines, whether it changes the price (applied), why it
   * does not or takes off less than it says (null when it does all it says), and whether it makes
   * parcel machines free for this basket (whichever delivery is chosen: the delivery methods list
   * shows them free).
   */
  code: { code: DiscountCode; amountCents: number; reason: CodeReason | null; applied: boolean; freeParcelMachine: boolean } | null;
  discountCents: number;
  digitalOnly: boolean;
  heavy: boolean;
  delivery: ChosenDelivery | null;
  deliveryCents: number;
  totalCents: number;
  vat: Array<{ ratePercent: number; netCents: number; vatCents: number }>;
  vatIncluded: boolean;
  /** The gift cards on the basket and what each pays of the total with VAT, in the order added. */
  giftCards: CardShare[];
  giftCardCents: number;
  /** What is left to pay after the gift cards: the total with VAT less giftCardCents. */
  toPayCents: number;
}

/**
 * The delivery chosen on the basket, as it holds now. One no longer offered (withdrawn by the back
 * office, outgrown by the basket, its machine, shop or country gone) has no cost (null, not 0):
 * nothing is charged for it until the shopper chooses again, and a method that lost its price is
 * never priced as free.
 */
export type ChosenDelivery = {
  parcelMachine: { id: number; name: string; city: string; address: string } | null;
  shop: { id: number; code: string; name: string } | null;
  countryCode: string | null;
} & ({ offered: true; method: OfferedMethod; costCents: number } | { offered: false; method: DeliveryMethod; costCents: null });

/** The reads pricing makes: the lines with their products, and the gift cards (Kysely-built by default). */
export interface PricingReads {
  lines: LineReader;
  cards?: BasketCardsReader;
  /**
   * Where `lines` gives kept products (basket-product-cache.ts): the products with these ids read
   * now. A line whose price differs from the one it was added at is priced again from it, so a
   * "price changed" notice is never made from a copy older than the line.
   */
  refresh?: ProductsReader;
}

export async function priceBasket(
  db: Db,
  context: BasketContext,
  basket: BasketRow | undefined,
  reads: PricingReads = buildLineQueries,
): Promise<PricedBasket> {
  return priceRead(db, context, basket, basket ? await reads.lines(db, basket.id, context.store.code) : [], reads);
}

/** priceLines for lines as `reads` read them, again from the products as they are now where a kept one shows a changed price. */
export async function priceRead(
  db: Db,
  context: BasketContext,
  basket: BasketRow | undefined,
  rows: readonly BasketLine[],
  reads: Omit<PricingReads, 'lines'>,
): Promise<PricedBasket> {
  const priced = await priceLines(db, context, basket, rows, reads.cards);
  const changed = priced.lines.filter((line) => line.notice?.code === 'PRICE_CHANGED').map((line) => line.product.id);
  if (!reads.refresh || changed.length === 0) return priced;
  const read = await reads.refresh(db, context.store.code, changed);
  const refreshed = rows.flatMap((row) => {
    if (!changed.includes(row.product.id)) return [row];
    const product = read.get(row.product.id);
    return product ? [{ line: row.line, product }] : [];
  });
  return priceLines(db, context, basket, refreshed, reads.cards);
}

/** The basket priced from its lines as read (in the caller's transaction, or just now outside one). */
export async function priceLines(
  db: Db,
  context: BasketContext,
  basket: BasketRow | undefined,
  rows: readonly BasketLine[],
  readCards?: BasketCardsReader,
): Promise<PricedBasket> {
  const { caller, store, now } = context;
  const companyPrices =
    caller.kind === 'WHOLESALE'
      ? await readCompanyPrices(
          db,
          caller.companyId,
          rows.map((row) => row.product.id),
        )
      : new Map<number, number>();
  const vatIncluded = caller.kind !== 'WHOLESALE';
  // One customer for every line, but for wholesale, whose company may have a price per product.
  const customer = caller.kind === 'WHOLESALE' ? undefined : pricingCustomer(caller);
  const lines: PricedLine[] = [];
  const cards =
    basket && rows.some((row) => row.product.type === VIRTUAL_GIFT_CARD)
      ? await virtualCardLines(db, basket.id)
      : new Map<number, VirtualCardLine>();
  for (const { line, product } of rows) {
    const virtualCard = product.type === VIRTUAL_GIFT_CARD ? (cards.get(product.id) ?? null) : null;
    const price = virtualCard
      ? { priceCents: virtualCard.amountCents, strikeThroughCents: null, vatIncluded, discountPercent: 0, source: 'shop' as const }
      : priceFor(product, customer ?? pricingCustomer(caller, companyPrices.get(product.id)), store, now);
    const visible = isVisibleTo(product, caller);
    // A virtual gift card without its details (amount, recipient) cannot be ordered.
    const maxQuantity = visible && (product.type !== VIRTUAL_GIFT_CARD || virtualCard) ? maxOrderable(product) : 0;
    const available = maxQuantity > 0;
    // An unavailable line keeps its quantity on show; it counts for nothing either way.
    const quantity = available ? Math.min(line.quantity, maxQuantity) : line.quantity;
    const notice: LineNotice | null = !available
      ? { code: 'UNAVAILABLE' }
      : quantity < line.quantity
        ? { code: 'QUANTITY_CUT', max: maxQuantity }
        : price.priceCents !== line.seen_price_cents
          ? { code: 'PRICE_CHANGED', fromCents: line.seen_price_cents }
          : null;
    lines.push({
      line,
      product,
      price,
      available,
      maxQuantity,
      quantity,
      totalCents: price.priceCents * quantity,
      discountCents: 0,
      notice,
      virtualCard,
    });
  }
  const orderable = lines.filter((line) => line.available);
  const subtotalCents = orderable.reduce((sum, line) => sum + line.totalCents, 0);
  const itemCount = orderable.reduce((sum, line) => sum + line.quantity, 0);

  let code: PricedBasket['code'] = null;
  const discountCode = basket?.discount_code_id ? await discountCodeById(db, basket.discount_code_id) : undefined;
  if (discountCode) {
    const categories = discountCode.conditions.some((condition) => condition.kind === 'CATEGORY')
      ? await readProductCategoryCodes(
          db,
          orderable.map((line) => line.product.id),
        )
      : new Map<number, Set<string>>();
    const outcome = evaluateCode(
      discountCode,
      orderable.map((line) => codeLine(line, categories, vatIncluded)),
      {
        kind: caller.kind,
        storeCode: store.code,
        now,
        // A code's minimum sum is set with VAT: a wholesale basket's is compared with VAT added. It is
        // a sum of goods: a gift card is money bought at face value, and counted it made the code
        // take off the other lines what the card was bought to reach.
        subtotalCents: sumWithVat(
          orderable.filter((line) => !isGiftCard(line.product.type)).map((line) => withRate(line, line.totalCents)),
          vatIncluded,
        ),
      },
    );
    for (const line of orderable) line.discountCents = outcome.perLine.get(line.product.id) ?? 0;
    code = {
      code: discountCode,
      amountCents: outcome.amountCents,
      reason: outcome.reason,
      applied: codeApplies(outcome.reason),
      freeParcelMachine: outcome.freeParcelMachine && codeApplies(outcome.reason),
    };
  }
  const discountCents = code?.amountCents ?? 0;
  const digitalOnly = orderable.length > 0 && orderable.every((line) => isDigitalLine(line));
  const weight = orderable.reduce((sum, line) => sum + (line.product.weightG ?? 0) * line.quantity, 0);
  const shape = { digitalOnly, heavy: weight > HEAVY_BASKET_GRAMS };
  const deliveryShape = {
    ...shape,
    payableCents: payableWithVatCents(orderable, vatIncluded),
    freeParcelMachine: code?.freeParcelMachine === true,
  };
  const delivery = basket ? await chosenDelivery(db, context, basket, deliveryShape) : null;
  // A code that takes nothing off the lines says so unless it makes the chosen delivery free.
  if (code && code.reason === null && code.amountCents === 0) {
    code.reason = freeDeliveryReason(
      delivery?.offered
        ? {
            kind: delivery.method.kind,
            regularCents: callerDeliveryCost(delivery.method, { ...deliveryShape, freeParcelMachine: false }, delivery.countryCode, caller),
          }
        : null,
    );
    code.applied = code.reason === null;
  }
  const deliveryCents = delivery?.costCents ?? 0;
  const totalCents = subtotalCents - discountCents + deliveryCents;
  const vat = vatTable(
    orderable,
    delivery?.offered ? { ratePercent: delivery.method.vatRatePercent, cents: deliveryCents } : null,
    vatIncluded,
  );
  // Final price = items + delivery - gift cards; the cards pay what is paid, with VAT.
  const payableCents = vatIncluded ? totalCents : totalCents + vat.reduce((sum, rate) => sum + rate.vatCents, 0);
  const giftCards = basket ? await shareOverCards(db, basket.id, payableCents, now, readCards) : [];
  const giftCardCents = giftCards.reduce((sum, card) => sum + card.amountCents, 0);
  return {
    basket,
    lines,
    itemCount,
    subtotalCents,
    code,
    discountCents,
    ...shape,
    delivery,
    deliveryCents,
    totalCents,
    vat,
    vatIncluded,
    giftCards,
    giftCardCents,
    toPayCents: payableCents - giftCardCents,
  };
}

/**
 * Whether the basket has anything to deliver: not when it is empty, nor when every orderable line is
 * digital (granted or issued once paid, never shipped). The basket and the checkout meta say so, and
 * checkout asks for a delivery method and a shipping address only then.
 */
export const needsDelivery = (priced: Pick<PricedBasket, 'itemCount' | 'digitalOnly'>): boolean =>
  priced.itemCount > 0 && !priced.digitalOnly;

const VIRTUAL_GIFT_CARD = 'VIRTUAL_GIFT_CARD';
const isDigitalLine = (line: PricedLine) => isDigitalProduct(line.product);
const withRate = (line: PricedLine, cents: number) => ({ cents, ratePercent: line.product.vatRatePercent });

/** What the orderable lines cost after the code, with VAT: free-delivery thresholds are set with VAT. */
export const payableWithVatCents = (orderable: PricedLine[], vatIncluded: boolean) =>
  sumWithVat(
    orderable.map((line) => withRate(line, line.totalCents - line.discountCents)),
    vatIncluded,
  );

function codeLine(line: PricedLine, categories: Map<number, Set<string>>, vatIncluded: boolean): CodeLine {
  return {
    productId: line.product.id,
    productCode: line.product.code,
    type: line.product.type,
    bindingCode: line.product.bindingCode,
    categoryCodes: categories.get(line.product.id) ?? new Set(),
    // A percentage is of the regular shop price; without VAT (wholesale) of the caller's own price.
    basePriceCents: vatIncluded ? Math.max(line.product.shopPriceCents, line.price.priceCents) : line.price.priceCents,
    unitPriceCents: line.price.priceCents,
    quantity: line.quantity,
  };
}

async function chosenDelivery(
  db: Db,
  context: BasketContext,
  basket: BasketRow,
  shape: { digitalOnly: boolean; heavy: boolean; payableCents: number; freeParcelMachine: boolean },
): Promise<ChosenDelivery | null> {
  if (basket.delivery_method_id === null) return null;
  // A method the back office withdrew stays the basket's choice, not offered (isOffered), as a closed machine does.
  const method = await deliveryMethodOf(db, context.store.code, context.language, basket.delivery_method_id);
  if (!method) return null;
  const machine = basket.parcel_machine_id === null ? undefined : await findParcelMachine(db, basket.parcel_machine_id);
  const shop = method.shops.find((candidate) => candidate.id === basket.delivery_shop_id) ?? null;
  const place = {
    parcelMachine: machine ? { id: Number(machine.id), name: machine.name, city: machine.city, address: machine.address } : null,
    shop: shop && { id: shop.id, code: shop.code, name: shop.name },
    countryCode: basket.delivery_country_code,
  };
  const holds = choiceStillHolds(method, {
    machine: machine && { isActive: Boolean(machine.is_active), carrier: machine.carrier, countryCode: machine.country_code },
    shop,
    country: basket.delivery_country_code,
  });
  if (!inService(method) || !isOffered(method, shape) || !holds) return { ...place, offered: false, method, costCents: null };
  return { ...place, offered: true, method, costCents: callerDeliveryCost(method, shape, basket.delivery_country_code, context.caller) };
}

/** VAT per rate over what is paid (lines less their code discount, and delivery). */
function vatTable(lines: PricedLine[], delivery: { ratePercent: number; cents: number } | null, vatIncluded: boolean) {
  const byRate = new Map<number, number>();
  for (const line of lines)
    byRate.set(line.product.vatRatePercent, (byRate.get(line.product.vatRatePercent) ?? 0) + line.totalCents - line.discountCents);
  if (delivery && delivery.cents > 0) byRate.set(delivery.ratePercent, (byRate.get(delivery.ratePercent) ?? 0) + delivery.cents);
  return [...byRate.entries()]
    .sort(([a], [b]) => a - b)
    .map(([ratePercent, cents]) => {
      const vatCents = vatIncluded ? vatOfGross(cents, ratePercent) : vatOfNet(cents, ratePercent);
      return { ratePercent, netCents: vatIncluded ? cents - vatCents : cents, vatCents };
    });
}

/** The method's cost for the basket as the caller sees money: without VAT for a wholesale customer. */
export function callerDeliveryCost(
  method: OfferedMethod,
  shape: { digitalOnly: boolean; heavy: boolean; payableCents: number; freeParcelMachine: boolean },
  country: string | null,
  caller: Caller,
): number {
  const gross = deliveryCost(method, shape, country);
  return caller.kind === 'WHOLESALE' ? gross - vatOfGross(gross, method.vatRatePercent) : gross;
}
