import { describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import { serializerCompiler } from '../../src/http/serialization.js';
import { GUEST, ProductCardSchema, type Caller, type ProductBase } from '../../src/modules/catalogue/index.js';
import { toCard } from '../../src/modules/catalogue/products/product-card.mapper.js';
import { cardText as cardBytes, cardTextOnce as cardBytesOnce } from '../../src/modules/catalogue/products/product-card.text.js';
import type { PriceContext } from '../../src/modules/catalogue/products/product-card.types.js';

// A card written as text (kept per base, priced per call) must be the very text the response
// serializer writes for toCard's object: the wishlist sends it as it is. Cards are kept as their
// UTF-8 bytes; these tests read them back as text.

const cardText = (...args: Parameters<typeof cardBytes>) => cardBytes(...args).toString('utf8');
const cardTextOnce = (...args: Parameters<typeof cardBytesOnce>) => cardBytesOnce(...args).toString('utf8');

const bindings = { name: (code: string, language: string) => `${code} in ${language} "quoted" \\ õ` };
const store = { guestDiscountPercent: 0, loggedInDiscountPercent: 3 };
const serialize = serializerCompiler({ schema: Type.Array(ProductCardSchema), method: 'GET', url: '/', httpStatus: '200' }) as (
  data: unknown,
) => string;

function base(overrides: Partial<ProductBase> = {}): ProductBase {
  return {
    id: 7,
    code: '1000007',
    name: 'Tõde ja "õigus" \\ 1\u2028 <b>',
    type: 'BOOK',
    language: 'ET',
    bindingCode: 'HARDCOVER',
    year: 1926,
    imageUrl: 'https://img.example/7.jpg',
    availability: 'AVAILABLE',
    deliveryTime: 'DAYS_1_7',
    webStock: 12,
    ratingSum: 14,
    ratingCount: 3,
    releasedAt: Date.UTC(1926, 4, 17),
    isActive: true,
    hiddenWeb: false,
    hiddenBusiness: false,
    inStore: true,
    pricing: { type: 'BOOK', shopPriceCents: 1999, originalPriceCents: 2499, wholesalePriceCents: 1200, vatRatePercent: 9 },
    authors: [{ id: 1, code: 'P1', name: 'A. H. Tammsaare' }],
    ...overrides,
  };
}

const caller = (overrides: Partial<Caller>): Caller => ({ ...GUEST, ...overrides });
const context = (who: Caller, companyPrices = new Map<number, number>()): PriceContext => ({
  caller: who,
  store,
  now: Date.UTC(2026, 10, 27),
  companyPrices,
});

describe('a card as text', () => {
  const bases = [
    base(),
    base({ id: 8, bindingCode: null, year: null, imageUrl: null, language: null, deliveryTime: null, releasedAt: null }),
    base({ id: 9, authors: [], ratingSum: 0, ratingCount: 0, availability: 'TEMPORARILY_OUT_OF_STOCK', webStock: 0 }),
    base({
      id: 10,
      name: 'Война и мир 📚',
      authors: [
        { id: 2, code: 'P2', name: 'Лев Толстой' },
        { id: 3, code: 'P3', name: 'x' },
      ],
    }),
    base({
      id: 11,
      pricing: {
        type: 'BOOK',
        shopPriceCents: 1000,
        originalPriceCents: null,
        wholesalePriceCents: null,
        vatRatePercent: 9,
        campaignPrices: [{ customerKind: 'RETAIL', priceCents: 799 }],
      },
    }),
  ];
  const callers = [
    caller({}),
    caller({ kind: 'SIMPLE', clientAccountId: 1, clientCode: 'C1', clientDiscountPercent: 5 }),
    caller({ kind: 'WHOLESALE', clientAccountId: 2, clientCode: 'C2', companyId: 4, companyDiscountPercent: 10 }),
  ];

  it('is the serializer’s text of toCard’s object, for every caller, language and kind of value', () => {
    for (const who of callers) {
      for (const language of ['et', 'en', 'ru'] as const) {
        const priced = context(who, new Map([[7, 1111]]));
        const cards = bases.map((one) => toCard(one, priced, language, bindings));
        const texts = bases.map((one) => cardText(one, priced, language, bindings));
        expect(`[${texts.join(',')}]`).toBe(serialize(cards));
        // Written again from what was kept of them, and with nothing kept.
        expect(`[${bases.map((one) => cardText(one, priced, language, bindings)).join(',')}]`).toBe(serialize(cards));
        expect(`[${bases.map((one) => cardTextOnce(one, priced, language, bindings)).join(',')}]`).toBe(serialize(cards));
      }
    }
  });

  it('keeps priced texts only while no campaign starts or ends, and per what the caller and the store pay', () => {
    const day = 86_400_000;
    const start = Date.UTC(2026, 10, 27);
    const one = base({
      id: 13,
      pricing: {
        type: 'BOOK',
        shopPriceCents: 2000,
        originalPriceCents: 2500,
        wholesalePriceCents: 1500,
        vatRatePercent: 9,
        campaignPrices: [
          { customerKind: 'RETAIL', priceCents: 1500, validFrom: start + day, validTo: start + 3 * day },
          { customerKind: 'RETAIL', priceCents: 1200, validFrom: start + 2 * day },
          { customerKind: 'BUSINESS', priceCents: 1100, validTo: start + 2 * day + 1 },
        ],
      },
    });
    const otherStore = { guestDiscountPercent: 7, loggedInDiscountPercent: 3 };
    const business = caller({ kind: 'BUSINESS', clientAccountId: 3, clientCode: 'C3', companyId: 5, companyDiscountPercent: 2 });
    const times = [0, day - 1, day, day + 1, 2 * day - 1, 2 * day, 2 * day + 1, 3 * day - 1, 3 * day, 9 * day, day, 0];
    const seen = new Set<string>();
    for (const now of times.map((t) => start + t)) {
      for (const who of [...callers, business]) {
        for (const shop of [store, otherStore]) {
          for (const own of [new Map<number, number>(), new Map([[13, 999]])]) {
            const priced = { caller: who, store: shop, now, companyPrices: own };
            const text = cardText(one, priced, 'et', bindings);
            expect(text, `${who.kind} at +${now - start}`).toBe(serialize([toCard(one, priced, 'et', bindings)]).slice(1, -1));
            seen.add(text);
          }
        }
      }
    }
    // The sweep crossed prices that differ (so the kept texts were put to the test).
    expect(seen.size).toBeGreaterThan(8);
  });

  it('keeps each card as a Buffer of its own, not a slice of the shared 8 KB pool it would keep alive', () => {
    const one = base({ id: 14 });
    for (const who of callers) {
      const first = cardBytes(one, context(who), 'et', bindings);
      const again = cardBytes(one, context(who), 'et', bindings);
      for (const kept of [first, again]) expect(kept.buffer.byteLength).toBe(kept.length);
    }
  });

  it('keeps the caller-free text per base and language, and prices every call anew', () => {
    const one = base({ id: 12 });
    const guest = cardText(one, context(callers[0]!), 'et', bindings);
    const client = cardText(one, context(callers[1]!), 'et', bindings);
    expect(JSON.parse(guest).price).toBe(19.99);
    expect(JSON.parse(client).price).toBe(toCard(one, context(callers[1]!), 'et', bindings).price);
    expect(JSON.parse(client).price).not.toBe(19.99);
    expect(JSON.parse(cardText(one, context(callers[0]!), 'en', bindings)).binding.name).toContain('in en');
    expect(JSON.parse(guest).binding.name).toContain('in et');
  });
});
