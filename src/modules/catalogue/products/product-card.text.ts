import type { Language } from '../../../i18n/index.js';
import { toIsoDate } from '../../../db/time.js';
import type { BindingNames } from './binding-names.repository.js';
import { priceFields, ratingOf } from './product-card.mapper.js';
import type { PriceContext, ProductBase } from './product-card.types.js';

// A card as JSON text (ProductCardSchema: the same fields in the same order as toCard and the
// response serializer write them). A list of 50 cards spent about a third of its time in the
// serializer walking every card field by field, and again in measuring and encoding the answer
// it built from thousands of small pieces. All of a card but its price is the same for every
// caller while the base is kept, so that text is written once per base and language and kept
// with it; only the price is written per request. A base lives as long as the catalogue keeps
// it, so the kept text (the binding's name included) is as current as the base itself.

/** The text before and after the price fields, per language. */
type KeptText = Partial<Record<Language, readonly [before: string, after: string]>>;

const keptTexts = new WeakMap<ProductBase, KeptText>();

export function cardText(base: ProductBase, context: PriceContext, language: Language, bindings: BindingNames): string {
  let kept = keptTexts.get(base);
  if (kept === undefined) {
    kept = {};
    keptTexts.set(base, kept);
  }
  const [before, after] = (kept[language] ??= callerFreeText(base, language, bindings));
  const price = priceFields(base, context);
  return (
    before +
    ',"price":' +
    price.price +
    ',"strikeThroughPrice":' +
    (price.strikeThroughPrice === null ? 'null' : price.strikeThroughPrice) +
    ',"discountPercent":' +
    price.discountPercent +
    ',"vatIncluded":' +
    price.vatIncluded +
    after
  );
}

function callerFreeText(base: ProductBase, language: Language, bindings: BindingNames): readonly [string, string] {
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
  return [before.slice(0, -1), ',' + after.slice(1)];
}
