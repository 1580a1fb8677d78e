import { discountPercent } from '../modules/catalogue/index.js';
import type { ProductTypeCode } from '../db/schema.js';
import type { PersonRole } from '../modules/catalogue/index.js';
import type { DemoClient } from './accounts.js';
import { DAY } from './accounts.js';
import { push, type Batch, type IdBase } from './batch.js';
import type { Leaf } from './categories.js';
import { eanFor, isbn10Of, isbnFor, oldEditionEan } from './ean.js';
import type { Random } from './random.js';
import type { DemoShop } from './shops.js';
import { stockFor, type StockMode } from './stock.js';

// One product and everything hanging off it (codes, stores, categories, persons, assets, stock,
// related products, ratings), with the derived columns computed from the rows written here:
// web_stock, image_url, discount_percent, rating_sum and rating_count.

export interface ProductSpec {
  type: ProductTypeCode;
  name: string;
  altNames: string[];
  description: string | null;
  language: string | null;
  binding: string | null;
  year: number | null;
  pages: number | null;
  /** Width, height, depth (mm) and weight (g); null for digital products. */
  size: readonly [number, number, number, number] | null;
  publisherId: number | null;
  seriesId: number | null;
  seriesNumber: number | null;
  physicalBookId: number | null;
  shopPriceCents: number;
  vatRate: number;
  persons: ReadonlyArray<readonly [number, PersonRole]>;
  /** Leaves in WEB (first = the main one) and the WEB2 leaf used when the product is sold there. */
  webLeaves: Leaf[];
  web2Leaf: Leaf | undefined;
  barcode: 'isbn' | 'ean' | 'none';
  stock: StockMode;
  comingSoon: boolean;
  /** Chance of being sold in the outlet too. */
  outletShare: number;
  /** A gift card: its face value, no list or wholesale price. */
  fixedPrice: boolean;
}

/** What later parts (campaigns, lists, orders, clicks) need to know about the products. */
export class ProductRegistry {
  readonly ids: number[] = [];
  readonly codes: string[] = [];
  readonly prices: number[] = [];
  /** Bit 1: sold in WEB; bit 2: in WEB2. */
  readonly stores: number[] = [];
  /** Physical, active, visible and sellable: fit for orders, campaigns and lists. */
  readonly sellable: boolean[] = [];
  /** Sales weight: bestsellers are bought and viewed more. */
  readonly weights: number[] = [];
  readonly types: ProductTypeCode[] = [];
}

export interface RowContext {
  random: Random;
  now: number;
  ids: IdBase;
  shops: readonly DemoShop[];
  clients: readonly DemoClient[];
  registry: ProductRegistry;
  /** Recent products per WEB leaf, for "related products". */
  recentByLeaf: Map<number, number[]>;
}

const IMAGE_SIZE: Partial<Record<ProductTypeCode, readonly [number, number]>> = {
  BOOK: [600, 900],
  EBOOK: [600, 900],
  USED_BOOK: [600, 900],
  AUDIOBOOK: [800, 800],
};
const COMMENTS: Record<'et' | 'en' | 'ru', readonly string[]> = {
  et: [
    'Väga hea raamat, soovitan!',
    'Lugesin ühe hingetõmbega.',
    'Alguses venis, aga lõpp oli võimas.',
    'Ilus kujundus ja hea tõlge.',
    'Kingiks ideaalne.',
    'Ootasin rohkem.',
    'Lapsed on vaimustuses.',
  ],
  en: [
    'A wonderful read, highly recommended.',
    'Could not put it down.',
    'Slow start but a great ending.',
    'Beautiful edition.',
    'Not quite what I expected.',
  ],
  ru: [
    'Отличная книга, рекомендую!',
    'Прочитала на одном дыхании.',
    'Начало затянуто, но финал сильный.',
    'Прекрасное издание.',
    'Ожидала большего.',
  ],
};

/** Writes the product into the batch; returns its id. */
export function emitProduct(ctx: RowContext, batch: Batch, spec: ProductSpec): number {
  const { random, now } = ctx;
  const id = ctx.ids.product++;
  const code = String(1_000_000 + id);
  const group = spec.language === 'ET' || spec.language === 'EN' || spec.language === 'RU' ? spec.language : 'OTHER';
  const ean = spec.barcode === 'isbn' ? isbnFor(id, group) : spec.barcode === 'ean' ? eanFor(id) : null;

  const released = releaseTime(random, now, spec);
  // Added to the catalogue around its release; older titles at some point in the last four years.
  const created = spec.comingSoon
    ? now - random.int(1, 60) * DAY
    : released > now - 1500 * DAY
      ? Math.min(now, released - random.int(0, 20) * DAY)
      : now - random.int(1, 1500) * DAY;
  const updated = created + Math.floor(random.next() * (now - created));

  // Prices: a list price above the shop price on part of the range; wholesale price VAT excluded.
  const original = spec.fixedPrice
    ? null
    : random.chance(0.45)
      ? roundPrice(spec.shopPriceCents * (1.05 + random.next() * 0.45))
      : random.chance(0.1)
        ? spec.shopPriceCents
        : null;
  const wholesale = spec.fixedPrice
    ? null
    : random.chance(0.75)
      ? Math.round((spec.shopPriceCents / (1 + spec.vatRate / 100)) * (0.55 + random.next() * 0.2))
      : random.chance(0.2)
        ? 0
        : null;

  const stock = stockFor(random, ctx.shops, spec.stock, spec.comingSoon);
  for (const [shopId, quantity] of stock.rows)
    push(batch, 'shop_stock', { product_id: id, shop_id: shopId, quantity, updated_at: updated });

  const stores = storesOf(random, spec);
  if (stores & 1) {
    for (const leaf of spec.webLeaves) push(batch, 'product_category', { product_id: id, category_id: leaf.id });
    push(batch, 'product_store', { product_id: id, store_code: 'WEB' });
  }
  if (stores & 2 && spec.web2Leaf) {
    push(batch, 'product_category', { product_id: id, category_id: spec.web2Leaf.id });
    push(batch, 'product_store', { product_id: id, store_code: 'WEB2' });
  }

  spec.persons.forEach(([personId, role], index) =>
    push(batch, 'product_person', { product_id: id, person_id: personId, role, position: index + 1 }),
  );
  if (ean !== null && spec.barcode === 'isbn') {
    const isbn10 = isbn10Of(ean);
    if (isbn10 !== null && random.chance(0.3)) push(batch, 'product_alt_code', { product_id: id, code: isbn10 });
    if (random.chance(0.05)) push(batch, 'product_alt_code', { product_id: id, code: oldEditionEan(id) });
  }

  const imageUrl = emitAssets(ctx, batch, id, code, spec);
  emitRelated(ctx, batch, id, spec);
  const rating = emitRatings(ctx, batch, id, created);

  const active = !random.chance(0.01);
  const hiddenWeb = random.chance(0.015);
  const hiddenBusiness = random.chance(0.03);
  const digital = spec.stock === 'digital';
  const salesCount = spec.comingSoon || !active ? 0 : Math.floor(Math.pow(random.next(), 5) * (digital ? 300 : 800));
  push(batch, 'product', {
    id,
    code,
    ean,
    type: spec.type,
    name: spec.name,
    alt_names: JSON.stringify(spec.altNames),
    description: spec.description,
    language: spec.language,
    binding_code: spec.binding,
    year: spec.year,
    pages: spec.pages,
    width_mm: spec.size?.[0] ?? null,
    height_mm: spec.size?.[1] ?? null,
    depth_mm: spec.size?.[2] ?? null,
    weight_g: spec.size?.[3] ?? null,
    publisher_id: spec.publisherId,
    series_id: spec.seriesId,
    series_number: spec.seriesNumber,
    physical_book_id: spec.physicalBookId,
    shop_price_cents: spec.shopPriceCents,
    original_price_cents: original,
    wholesale_price_cents: wholesale,
    vat_rate_percent: spec.vatRate,
    discount_percent: discountPercent(spec.shopPriceCents, original),
    availability: stock.availability,
    delivery_time: stock.deliveryTime,
    web_stock: stock.webStock,
    image_url: imageUrl,
    is_active: active,
    hidden_web: hiddenWeb,
    hidden_business: hiddenBusiness,
    sales_count: salesCount,
    rating_sum: rating.sum,
    rating_count: rating.count,
    released_at: released,
    created_at: created,
    updated_at: updated,
  });

  const { registry } = ctx;
  registry.ids.push(id);
  registry.codes.push(code);
  registry.prices.push(spec.shopPriceCents);
  registry.stores.push(stores);
  registry.sellable.push(active && !hiddenWeb && !spec.comingSoon && stock.availability !== 'PERMANENTLY_OUT_OF_STOCK');
  registry.weights.push(salesCount + 1);
  registry.types.push(spec.type);
  return id;
}

function releaseTime(random: Random, now: number, spec: ProductSpec): number {
  if (spec.comingSoon) return now + random.int(3, 90) * DAY;
  const year = spec.year ?? new Date(now).getUTCFullYear() - random.int(0, 5);
  return Math.min(now - random.int(1, 20) * DAY, Date.UTC(year, random.int(0, 11), random.int(1, 28), 9));
}

/** Shop prices end like real ones: 14.99, 9.95, 12.50. */
export function roundPrice(cents: number): number {
  const euros = Math.max(1, Math.round(cents / 100));
  return euros * 100 - [1, 5, 50, 10][euros % 4]!;
}

function storesOf(random: Random, spec: ProductSpec): number {
  if (spec.web2Leaf === undefined) return 1;
  const outlet = random.chance(spec.outletShare);
  if (outlet && random.chance(0.05)) return 2;
  return outlet ? 3 : 1;
}

function emitAssets(ctx: RowContext, batch: Batch, productId: number, code: string, spec: ProductSpec): string | null {
  const { random } = ctx;
  let position = 0;
  let first: string | null = null;
  if (random.chance(0.93)) {
    const [width, height] = IMAGE_SIZE[spec.type] ?? [800, 800];
    const images = random.chance(0.15) ? random.int(2, 3) : 1;
    for (let i = 1; i <= images; i++) {
      const url = `https://img.example/products/${code}${i === 1 ? '' : `-${i}`}.jpg`;
      first ??= url;
      push(batch, 'product_asset', {
        id: ctx.ids.product_asset++,
        product_id: productId,
        kind: 'IMAGE',
        url,
        mime_type: 'image/jpeg',
        width,
        height,
        position: position++,
      });
    }
  }
  if ((spec.type === 'BOOK' || spec.type === 'EBOOK') && random.chance(0.12)) {
    push(batch, 'product_asset', {
      id: ctx.ids.product_asset++,
      product_id: productId,
      kind: 'SAMPLE',
      url: `https://img.example/samples/${code}.pdf`,
      mime_type: 'application/pdf',
      width: null,
      height: null,
      position: position++,
    });
  }
  if (spec.type === 'AUDIOBOOK' && random.chance(0.5)) {
    push(batch, 'product_asset', {
      id: ctx.ids.product_asset++,
      product_id: productId,
      kind: 'AUDIO_SAMPLE',
      url: `https://img.example/samples/${code}.mp3`,
      mime_type: 'audio/mpeg',
      width: null,
      height: null,
      position: position++,
    });
  }
  return first;
}

function emitRelated(ctx: RowContext, batch: Batch, productId: number, spec: ProductSpec): void {
  const { random } = ctx;
  const related = new Set<number>();
  if (spec.physicalBookId !== null) related.add(spec.physicalBookId);
  const leaf = spec.webLeaves[0];
  if (leaf === undefined) return;
  const recent = ctx.recentByLeaf.get(leaf.id) ?? [];
  if (recent.length > 0 && random.chance(0.3)) {
    for (const other of random.sample(recent, random.int(1, 4))) related.add(other);
  }
  let position = 1;
  for (const other of related) push(batch, 'product_related', { product_id: productId, related_product_id: other, position: position++ });
  recent.push(productId);
  if (recent.length > 30) recent.shift();
  ctx.recentByLeaf.set(leaf.id, recent);
}

function emitRatings(ctx: RowContext, batch: Batch, productId: number, created: number): { sum: number; count: number } {
  const { random, clients, now } = ctx;
  if (clients.length === 0 || !random.chance(0.08)) return { sum: 0, count: 0 };
  const wanted = Math.min(clients.length, 1 + random.skewed(8));
  const raters = new Set<DemoClient>();
  for (let tries = 0; raters.size < wanted && tries < wanted * 4; tries++) raters.add(random.pick(clients));
  let sum = 0;
  for (const client of raters) {
    const rating = random.weighted<number>([
      [5, 40],
      [4, 30],
      [3, 15],
      [2, 8],
      [1, 7],
    ]);
    const at = created + Math.floor(random.next() * Math.max(1, now - created));
    sum += rating;
    push(batch, 'product_rating', { product_id: productId, client_account_id: client.accountId, rating, created_at: at, updated_at: at });
    if (random.chance(0.4)) {
      push(batch, 'product_comment', {
        id: ctx.ids.product_comment++,
        product_id: productId,
        client_account_id: client.accountId,
        author_name: client.firstName,
        body: random.pick(COMMENTS[client.language]),
        language: client.language,
        created_at: at,
      });
    }
  }
  return { sum, count: raters.size };
}
