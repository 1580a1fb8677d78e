import type { Language } from '../../../i18n/index.js';
import type { CampaignPrice } from '../../pricing/index.js';
import type { BindingNames } from './binding-names.repository.js';
import { jsonBytes, serializerCompiler } from '../../../http/serialization.js';
import { ProductCardSchema } from '../catalogue.schemas.js';
import { priceFields, toCard } from './product-card.mapper.js';
import type { PriceContext, ProductBase, ProductCard } from './product-card.types.js';

// A card as JSON text, written by the response serializer's own function for ProductCardSchema, and
// kept as its UTF-8 bytes. A list of 50 cards spent about a third of its time in the serializer
// walking every card field by field, and again in measuring and encoding the answer it built from
// thousands of small pieces. Kept as a string, a page of cards was still measured and encoded per
// answer: joined, a string of Cyrillic names or a euro sign is flattened into a two-byte string of
// twice its length, then scanned for its UTF-8 length and encoded again to be written (120-170 µs
// for a wishlist's 26 KB page here, against 25-35 µs to copy the kept bytes into one Buffer).
// All of a card but its price is the same for every caller while the base is kept, so the text
// around the price is cut from the first card written and kept with the base, per language. A
// base lives as long as the catalogue keeps it, so the kept text (the binding's name included) is
// as current as the base itself (a renamed binding shows once the bases kept before the rename
// expire, within a cache period). With the caches off nothing is kept (cardTextOnce): a base is
// read for one answer only, and keeping would cost more than it saves.
//
// The price is a function of the base, the pricing inputs of the caller (kind, discounts, a
// company's own price) and of the store (its discounts), and the time only through the campaign
// prices' windows. So the priced text is kept too, per those inputs, for the stretch of time in
// which no campaign of the product starts or ends: the same text priceFor would give, without
// pricing it again. Callers share it by what they pay, not by who they are (every retail client
// with a 5 % discount, every guest).

interface KeptCard {
  before: Buffer;
  after: Buffer;
  /** By pricing inputs (pricingKey): the whole text and the window [from, to) it holds for. */
  priced: Map<string, { text: Buffer; from: number; to: number }>;
}

/**
 * Pricing inputs a base keeps texts for (a guest and a few discount levels); more start it over,
 * which costs a pricing, not a wrong price. Bounds the texts' memory (catalogue.service.ts).
 */
const MAX_PRICED_PER_BASE = 4;

/** The response serializer's own writer of a card (the same compiled function the routes' schemas get). */
const serializeCard = serializerCompiler({ schema: ProductCardSchema, method: 'GET', url: '', httpStatus: '200' }) as (
  card: ProductCard,
) => string;
/** Where the price fields start, and the first field after them (ProductCardSchema's order). */
const PRICE_FIELD = ',"price":';
const AFTER_PRICE_FIELDS = ',"availability":';

const keptCards = new WeakMap<ProductBase, Partial<Record<Language, KeptCard>>>();
const contextKeys = new WeakMap<PriceContext, string>();

/** The card's text with nothing kept: for bases that are not kept either (caches off), where keeping costs more than it saves. */
export function cardTextOnce(base: ProductBase, context: PriceContext, language: Language, bindings: BindingNames): Buffer {
  return Buffer.from(serializeCard(toCard(base, context, language, bindings)));
}

/** The card's JSON text as UTF-8 bytes, from what is kept of the base (see above). */
export function cardText(base: ProductBase, context: PriceContext, language: Language, bindings: BindingNames): Buffer {
  let kept = keptCards.get(base);
  if (kept === undefined) {
    kept = {};
    keptCards.set(base, kept);
  }
  const key = pricingKey(context, base.id);
  const now = context.now;
  const card = kept[language];
  if (card === undefined) {
    // The first card is the serializer's whole text; the parts around the price are cut from it.
    const text = jsonBytes([serializeCard(toCard(base, context, language, bindings))]);
    const priced = new Map([[key, { text, ...campaignWindow(base.pricing.campaignPrices, now) }]]);
    // Keys are written unescaped and every string value's quotes escaped, so these are the fields
    // themselves. The parts are views of the card's own bytes (encoded once), not copies.
    kept[language] = {
      before: text.subarray(0, text.indexOf(PRICE_FIELD)),
      after: text.subarray(text.indexOf(AFTER_PRICE_FIELDS)),
      priced,
    };
    return text;
  }
  const hit = card.priced.get(key);
  if (hit !== undefined && hit.from <= now && now < hit.to) return hit.text;
  const price = priceFields(base, context);
  const fields =
    PRICE_FIELD +
    price.price +
    ',"strikeThroughPrice":' +
    (price.strikeThroughPrice === null ? 'null' : price.strikeThroughPrice) +
    ',"discountPercent":' +
    price.discountPercent +
    ',"vatIncluded":' +
    price.vatIncluded;
  const text = jsonBytes([card.before, fields, card.after]);
  if (card.priced.size >= MAX_PRICED_PER_BASE) card.priced.clear();
  card.priced.set(key, { text, ...campaignWindow(base.pricing.campaignPrices, now) });
  return text;
}

/** Everything pricing reads of the caller and the store (pricing.ts), and the company's own price of the product. */
function pricingKey(context: PriceContext, productId: number): string {
  let key = contextKeys.get(context);
  if (key === undefined) {
    const { caller, store } = context;
    key = `${caller.kind}:${caller.clientDiscountPercent}:${caller.companyDiscountPercent}:${store.guestDiscountPercent}:${store.loggedInDiscountPercent}`;
    contextKeys.set(context, key);
  }
  const own = context.companyPrices.get(productId);
  return own === undefined ? key : `${key}:${own}`;
}

/** The longest [from, to) around `now` in which no campaign price starts or ends: which ones apply stays the same. */
export function campaignWindow(campaigns: readonly CampaignPrice[] | undefined, now: number): { from: number; to: number } {
  let from = -Infinity;
  let to = Infinity;
  for (const campaign of campaigns ?? []) {
    for (const edge of [campaign.validFrom, campaign.validTo]) {
      if (edge === undefined) continue;
      if (edge <= now) from = Math.max(from, edge);
      else to = Math.min(to, edge);
    }
  }
  return { from, to };
}

/** The first instant after `now` at which a campaign price of one of the bases starts or ends (Infinity: none). */
export function campaignChangeAt(bases: Iterable<ProductBase | null>, now: number): number {
  let at = Infinity;
  for (const found of bases) {
    if (found) at = Math.min(at, campaignWindow(found.pricing.campaignPrices, now).to);
  }
  return at;
}
