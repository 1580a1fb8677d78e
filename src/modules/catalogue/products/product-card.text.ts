import type { Language } from '../../../i18n/index.js';
import { toIsoDate } from '../../../db/time.js';
import type { CampaignPrice } from '../../pricing/index.js';
import type { BindingNames } from './binding-names.repository.js';
import { priceFields, ratingOf } from './product-card.mapper.js';
import type { PriceContext, ProductBase } from './product-card.types.js';

// A card as JSON text (ProductCardSchema: the same fields in the same order as toCard and the
// response serializer write them). A list of 50 cards spent about a third of its time in the
// serializer walking every card field by field, and again in measuring and encoding the answer
// it built from thousands of small pieces. All of a card but its price is the same for every
// caller while the base is kept, so that text is written once per base and language and kept
// with it. A base lives as long as the catalogue keeps it, so the kept text (the binding's name
// included) is as current as the base itself.
//
// The price is a function of the base, the pricing inputs of the caller (kind, discounts, a
// company's own price) and of the store (its discounts), and the time only through the campaign
// prices' windows. So the priced text is kept too, per those inputs, for the stretch of time in
// which no campaign of the product starts or ends: the same text priceFor would give, without
// pricing it again. Callers share it by what they pay, not by who they are (every retail client
// with a 5 % discount, every guest).

interface KeptCard {
  before: string;
  after: string;
  /** By pricing inputs (pricingKey): the whole text and the window [from, to) it holds for. */
  priced: Map<string, { text: string; from: number; to: number }>;
}

/** Pricing inputs a base keeps texts for; more are rare (a handful of discount levels), and start it over. */
const MAX_PRICED_PER_BASE = 16;

const keptCards = new WeakMap<ProductBase, Partial<Record<Language, KeptCard>>>();
const contextKeys = new WeakMap<PriceContext, string>();

export function cardText(base: ProductBase, context: PriceContext, language: Language, bindings: BindingNames): string {
  let kept = keptCards.get(base);
  if (kept === undefined) {
    kept = {};
    keptCards.set(base, kept);
  }
  const card = (kept[language] ??= keptCard(base, language, bindings));
  const key = pricingKey(context, base.id);
  const now = context.now;
  const hit = card.priced.get(key);
  if (hit !== undefined && hit.from <= now && now < hit.to) return hit.text;
  const price = priceFields(base, context);
  const text =
    card.before +
    ',"price":' +
    price.price +
    ',"strikeThroughPrice":' +
    (price.strikeThroughPrice === null ? 'null' : price.strikeThroughPrice) +
    ',"discountPercent":' +
    price.discountPercent +
    ',"vatIncluded":' +
    price.vatIncluded +
    card.after;
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
function campaignWindow(campaigns: readonly CampaignPrice[] | undefined, now: number): { from: number; to: number } {
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

function keptCard(base: ProductBase, language: Language, bindings: BindingNames): KeptCard {
  const before = JSON.stringify({
    id: base.id,
    code: base.code,
    name: base.name,
    type: base.type,
    language: base.language,
    binding: base.bindingCode === null ? null : { code: base.bindingCode, name: bindings.name(base.bindingCode, language) },
    year: base.year,
    imageUrl: base.imageUrl,
    authors: base.authors.map(({ id, code, name }) => ({ id, code, name })),
  });
  const after = JSON.stringify({
    availability: base.availability,
    deliveryTime: base.deliveryTime,
    stockCount: base.webStock,
    rating: ratingOf(base),
    releaseDate: base.releasedAt === null ? null : toIsoDate(base.releasedAt),
  });
  // The two objects' texts less the brace where the price fields go between them.
  return { before: before.slice(0, -1), after: ',' + after.slice(1), priced: new Map() };
}
