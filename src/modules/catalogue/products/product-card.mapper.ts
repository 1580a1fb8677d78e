import type { Language } from '../../../i18n/index.js';
import { groupBy } from '../../../infra/group-by.js';
import { toIsoDate } from '../../../db/time.js';
import { priceFor, toWireMoney, type CampaignPrice } from '../../pricing/index.js';
import { pricingCustomer } from '../caller.js';
import type { BindingNames } from './binding-names.repository.js';
import type { BaseRows, PriceContext, ProductBase, ProductCard } from './product-card.types.js';

/** Bases from the rows of one read, by product id. */
export function toBases({ products, inStore, authors, campaigns }: BaseRows): Map<number, ProductBase> {
  const stocked = new Set(inStore.map((row) => row.product_id));
  const authorsOf = groupBy(authors, (row) => row.product_id);
  const campaignsOf = groupBy(campaigns, (row) => row.product_id);
  const bases = new Map<number, ProductBase>();
  for (const row of products) {
    bases.set(row.id, {
      id: row.id,
      code: row.code,
      name: row.name,
      type: row.type,
      language: row.language,
      bindingCode: row.binding_code,
      year: row.year,
      imageUrl: row.image_url,
      availability: row.availability,
      deliveryTime: row.delivery_time,
      // What the web can still sell: orders not yet handed to the back office hold some of the web stock.
      webStock: Math.max(0, Number(row.web_stock) - Number(row.reserved_quantity)),
      ratingSum: row.rating_sum,
      ratingCount: row.rating_count,
      releasedAt: row.released_at,
      isActive: Boolean(row.is_active),
      hiddenWeb: Boolean(row.hidden_web),
      hiddenBusiness: Boolean(row.hidden_business),
      inStore: stocked.has(row.id),
      pricing: {
        type: row.type,
        shopPriceCents: row.shop_price_cents,
        originalPriceCents: row.original_price_cents,
        wholesalePriceCents: row.wholesale_price_cents,
        vatRatePercent: row.vat_rate_percent,
        campaignPrices: (campaignsOf.get(row.id) ?? []).map((c): CampaignPrice => ({
          customerKind: c.customer_kind,
          priceCents: c.price_cents,
          validFrom: c.valid_from ?? undefined,
          validTo: c.valid_to ?? undefined,
        })),
      },
      authors: (authorsOf.get(row.id) ?? []).map(({ id, code, name }) => ({ id, code, name })),
    });
  }
  return bases;
}

/** The caller's price of the product: what its card shows, and what a list sorted by price orders by. */
export function callerPrice(base: ProductBase, context: PriceContext) {
  return priceFor(base.pricing, pricingCustomer(context.caller, context.companyPrices.get(base.id)), context.store, context.now);
}

/** The caller's price of the product as the wire shows it, and where it comes from. */
export function priceFields(base: ProductBase, context: PriceContext) {
  const price = callerPrice(base, context);
  return {
    price: toWireMoney(price.priceCents),
    strikeThroughPrice: price.strikeThroughCents === null ? null : toWireMoney(price.strikeThroughCents),
    discountPercent: price.discountPercent,
    vatIncluded: price.vatIncluded,
    source: price.source,
  };
}

export function toCard(base: ProductBase, context: PriceContext, language: Language, bindings: BindingNames): ProductCard {
  // Field by field rather than spread: one object literal of one shape, built for every card of every list.
  const price = priceFields(base, context);
  return {
    id: base.id,
    code: base.code,
    name: base.name,
    type: base.type,
    language: base.language,
    binding: base.bindingCode === null ? null : { code: base.bindingCode, name: bindings.name(base.bindingCode, language) },
    year: base.year,
    imageUrl: base.imageUrl,
    authors: base.authors,
    price: price.price,
    strikeThroughPrice: price.strikeThroughPrice,
    discountPercent: price.discountPercent,
    vatIncluded: price.vatIncluded,
    availability: base.availability,
    deliveryTime: base.deliveryTime,
    stockCount: base.webStock,
    rating: ratingOf(base),
    releaseDate: base.releasedAt === null ? null : toIsoDate(base.releasedAt),
  };
}

export function ratingOf(base: Pick<ProductBase, 'ratingSum' | 'ratingCount'>): { average: number | null; count: number } {
  return {
    average: base.ratingCount === 0 ? null : Math.round((base.ratingSum / base.ratingCount) * 10) / 10,
    count: base.ratingCount,
  };
}
