import { describe, expect, it } from 'vitest';
import {
  priceFor,
  toWireMoney,
  type CampaignPrice,
  type Customer,
  type CustomerKind,
  type PricedProduct,
  type ProductType,
  type StoreDiscounts,
} from '../../src/modules/pricing/pricing.js';

const NOW = Date.UTC(2026, 0, 15, 12);
const HOUR = 3_600_000;
const NO_STORE: StoreDiscounts = { guestDiscountPercent: 0, loggedInDiscountPercent: 0 };
const STORE: StoreDiscounts = { guestDiscountPercent: 5, loggedInDiscountPercent: 10 };

const book = (over: Partial<PricedProduct> = {}): PricedProduct => ({ type: 'BOOK', shopPriceCents: 2000, vatRatePercent: 9, ...over });
const ebook = (over: Partial<PricedProduct> = {}): PricedProduct => book({ type: 'EBOOK', ...over });
const retailCampaign = (priceCents: number, window: Partial<CampaignPrice> = {}): CampaignPrice => ({
  customerKind: 'RETAIL',
  priceCents,
  ...window,
});
const businessCampaign = (priceCents: number, window: Partial<CampaignPrice> = {}): CampaignPrice => ({
  customerKind: 'BUSINESS',
  priceCents,
  ...window,
});

const GUEST: Customer = { kind: 'GUEST' };
const simple = (clientDiscountPercent?: number): Customer => ({ kind: 'SIMPLE', clientDiscountPercent });
const business = (companyDiscountPercent?: number): Customer => ({ kind: 'BUSINESS', companyDiscountPercent });
const wholesale = (companyCustomPriceCents?: number | null): Customer => ({ kind: 'WHOLESALE', companyCustomPriceCents });

const ALL_TYPES: ProductType[] = [
  'BOOK',
  'EBOOK',
  'AUDIOBOOK',
  'GIFT_CARD',
  'VIRTUAL_GIFT_CARD',
  'OFFICE_EQUIPMENT',
  'TECH',
  'MUSIC',
  'MOVIE',
  'GAME',
  'USED_BOOK',
];
const DISCOUNTED_TYPES = ALL_TYPES.filter((type) => !['EBOOK', 'GIFT_CARD', 'VIRTUAL_GIFT_CARD'].includes(type));

describe('toWireMoney', () => {
  it.each([
    [0, 0, '0'],
    [5, 0.05, '0.05'],
    [10, 0.1, '0.1'],
    [1299, 12.99, '12.99'],
    [100000, 1000, '1000'],
    [-1299, -12.99, '-12.99'],
  ])('%i cents -> %d', (cents, wire, json) => {
    expect(toWireMoney(cents)).toBe(wire);
    expect(JSON.stringify(toWireMoney(cents))).toBe(json);
  });

  it('prints every amount with at most two decimals', () => {
    for (let cents = 0; cents < 20_000; cents++) {
      expect(JSON.stringify(toWireMoney(cents))).toMatch(/^\d+(\.\d{1,2})?$/);
    }
  });

  it.each([12.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53])('rejects %d', (cents) => {
    expect(() => toWireMoney(cents)).toThrow(RangeError);
  });
});

describe('retail: guest and logged-in customer', () => {
  it.each([
    ['GUEST', GUEST, NO_STORE, 2000, 'shop'],
    ['GUEST', GUEST, STORE, 1900, 'store-discount'],
    ['GUEST ignores the logged-in discount', GUEST, { guestDiscountPercent: 0, loggedInDiscountPercent: 10 }, 2000, 'shop'],
    ['GUEST has no client discount of its own', { kind: 'GUEST', clientDiscountPercent: 20 } as Customer, STORE, 1900, 'store-discount'],
    ['SIMPLE', simple(), NO_STORE, 2000, 'shop'],
    ['SIMPLE', simple(), STORE, 1800, 'store-discount'],
    ['SIMPLE ignores the guest discount', simple(), { guestDiscountPercent: 10, loggedInDiscountPercent: 0 }, 2000, 'shop'],
    ['SIMPLE with a 0% client discount', simple(0), STORE, 1800, 'store-discount'],
    ['SIMPLE with only a client discount', simple(15), NO_STORE, 1700, 'client-discount'],
  ] as const)('%s: %j', (_name, customer, store, priceCents, source) => {
    const strikeThroughCents = priceCents < 2000 ? 2000 : null;
    const discountPercent = (2000 - priceCents) / 20;
    expect(priceFor(book(), customer, store, NOW)).toEqual({ priceCents, strikeThroughCents, vatIncluded: true, discountPercent, source });
  });

  describe('discounts never stack: the single highest applies', () => {
    it.each([
      ['client higher than store', 15, 10, 1700, 'client-discount'],
      ['store higher than client', 10, 15, 1700, 'store-discount'],
      ['client lower than store', 5, 10, 1800, 'store-discount'],
      ['store lower than client', 10, 5, 1800, 'client-discount'],
      // A tie is the same cents either way; the client's own discount is the one named.
      ['equal', 10, 10, 1800, 'client-discount'],
    ] as const)('%s (client %d%%, store %d%%)', (_name, client, logged, priceCents, source) => {
      const price = priceFor(book(), simple(client), { guestDiscountPercent: 0, loggedInDiscountPercent: logged }, NOW);
      expect(price).toEqual({ priceCents, strikeThroughCents: 2000, vatIncluded: true, discountPercent: (2000 - priceCents) / 20, source });
    });
  });

  it.each(DISCOUNTED_TYPES)('store discounts apply to %s', (type) => {
    expect(priceFor(book({ type }), simple(), STORE, NOW)).toMatchObject({ priceCents: 1800, source: 'store-discount' });
    expect(priceFor(book({ type }), GUEST, STORE, NOW)).toMatchObject({ priceCents: 1900, source: 'store-discount' });
  });

  it('100% discount makes the product free', () => {
    expect(priceFor(book(), simple(100), NO_STORE, NOW)).toEqual({
      priceCents: 0,
      strikeThroughCents: 2000,
      vatIncluded: true,
      discountPercent: 100,
      source: 'client-discount',
    });
  });

  it('a discount that rounds to nothing is no discount and shows no strike-through', () => {
    // 1 cent less 10% is 0.9 cents, which rounds back to 1.
    expect(priceFor(book({ shopPriceCents: 1 }), simple(), STORE, NOW)).toEqual({
      priceCents: 1,
      strikeThroughCents: null,
      vatIncluded: true,
      discountPercent: 0,
      source: 'shop',
    });
  });
});

describe('e-books: no store-level discounts, but the client discount applies', () => {
  it.each([
    ['GUEST, guest discount', GUEST, STORE, 2000, 'shop'],
    ['SIMPLE, logged-in discount', simple(), STORE, 2000, 'shop'],
    ['SIMPLE, client discount lower than the store discount', simple(3), STORE, 1940, 'client-discount'],
    ['SIMPLE, client discount higher than the store discount', simple(20), STORE, 1600, 'client-discount'],
  ] as const)('%s', (_name, customer, store, priceCents, source) => {
    expect(priceFor(ebook(), customer, store, NOW)).toMatchObject({ priceCents, source });
  });

  it('a campaign still applies to an e-book', () => {
    expect(priceFor(ebook({ campaignPrices: [retailCampaign(1500)] }), GUEST, STORE, NOW)).toEqual({
      priceCents: 1500,
      strikeThroughCents: 2000,
      vatIncluded: true,
      discountPercent: 25,
      source: 'campaign',
    });
  });

  it('an e-book shows its list price struck through', () => {
    expect(priceFor(ebook({ originalPriceCents: 2500 }), simple(), STORE, NOW)).toMatchObject({
      priceCents: 2000,
      strikeThroughCents: 2500,
      discountPercent: 20,
    });
  });

  it('the company discount applies to an e-book (it is not a store-level default)', () => {
    expect(priceFor(ebook(), business(10), STORE, NOW)).toMatchObject({ priceCents: 1800, source: 'company-discount' });
  });
});

describe('gift cards: face value for everyone', () => {
  const giftCard = (type: ProductType): PricedProduct => ({
    type,
    shopPriceCents: 2500,
    originalPriceCents: 3000,
    wholesalePriceCents: 2000,
    vatRatePercent: 0,
    campaignPrices: [retailCampaign(1000), businessCampaign(1000)],
  });
  const bigDiscounts: StoreDiscounts = { guestDiscountPercent: 50, loggedInDiscountPercent: 50 };

  it.each([
    ['GIFT_CARD', GUEST],
    ['GIFT_CARD', simple(30)],
    ['GIFT_CARD', business(30)],
    ['VIRTUAL_GIFT_CARD', GUEST],
    ['VIRTUAL_GIFT_CARD', simple(30)],
    ['VIRTUAL_GIFT_CARD', business(30)],
  ] as const)('%s for %j: no discount, campaign or strike-through', (type, customer) => {
    expect(priceFor(giftCard(type), customer, bigDiscounts, NOW)).toEqual({
      priceCents: 2500,
      strikeThroughCents: null,
      vatIncluded: true,
      discountPercent: 0,
      source: 'shop',
    });
  });

  it.each(['GIFT_CARD', 'VIRTUAL_GIFT_CARD'] as const)('%s for wholesale: face value without VAT, no custom or wholesale price', (type) => {
    const expected = { priceCents: 2500, strikeThroughCents: null, vatIncluded: false, discountPercent: 0, source: 'shop-excl-vat' };
    expect(priceFor(giftCard(type), wholesale(1500), bigDiscounts, NOW)).toEqual(expected);
    expect(priceFor({ ...giftCard(type), vatRatePercent: 24, shopPriceCents: 1240 }, wholesale(), bigDiscounts, NOW)).toEqual({
      ...expected,
      priceCents: 1000,
    });
  });
});

describe('retail campaign prices', () => {
  it.each([
    ['lower than the discounted price wins', [retailCampaign(1500)], 1500, 25, 'campaign'],
    ['between the discounted and the shop price loses', [retailCampaign(1900)], 1800, 10, 'store-discount'],
    ['equal to the discounted price: the discount stays', [retailCampaign(1800)], 1800, 10, 'store-discount'],
    ['higher than the shop price loses', [retailCampaign(2500)], 1800, 10, 'store-discount'],
    [
      'the lowest of several applicable campaigns wins',
      [retailCampaign(1700), retailCampaign(1400), retailCampaign(1600)],
      1400,
      30,
      'campaign',
    ],
    ['a business campaign is not for retail', [businessCampaign(1000)], 1800, 10, 'store-discount'],
    ['a free campaign', [retailCampaign(0)], 0, 100, 'campaign'],
  ] as const)('%s', (_name, campaignPrices, priceCents, discountPercent, source) => {
    expect(priceFor(book({ campaignPrices: [...campaignPrices] }), simple(), STORE, NOW)).toEqual({
      priceCents,
      strikeThroughCents: 2000,
      vatIncluded: true,
      discountPercent,
      source,
    });
  });

  it('applies to guests as well', () => {
    expect(priceFor(book({ campaignPrices: [retailCampaign(1500)] }), GUEST, NO_STORE, NOW)).toEqual({
      priceCents: 1500,
      strikeThroughCents: 2000,
      vatIncluded: true,
      discountPercent: 25,
      source: 'campaign',
    });
  });

  it('beats the client discount too', () => {
    expect(priceFor(book({ campaignPrices: [retailCampaign(1500)] }), simple(20), NO_STORE, NOW)).toMatchObject({
      priceCents: 1500,
      source: 'campaign',
    });
    expect(priceFor(book({ campaignPrices: [retailCampaign(1500)] }), simple(30), NO_STORE, NOW)).toMatchObject({
      priceCents: 1400,
      source: 'client-discount',
    });
  });

  it.each([2000, 2100])('without discounts, a campaign of %i (not below the shop price) is ignored', (campaign) => {
    expect(priceFor(book({ originalPriceCents: 2500, campaignPrices: [retailCampaign(campaign)] }), GUEST, NO_STORE, NOW)).toEqual({
      priceCents: 2000,
      strikeThroughCents: 2500,
      vatIncluded: true,
      discountPercent: 20,
      source: 'shop',
    });
  });

  it('strikes through the shop price, not the list price', () => {
    expect(priceFor(book({ originalPriceCents: 2500, campaignPrices: [retailCampaign(1500)] }), GUEST, NO_STORE, NOW)).toEqual({
      priceCents: 1500,
      strikeThroughCents: 2000,
      vatIncluded: true,
      discountPercent: 25,
      source: 'campaign',
    });
  });

  describe('validity window [validFrom, validTo)', () => {
    const from = NOW;
    const to = NOW + 24 * HOUR;
    it.each([
      ['long before', from - HOUR, false],
      ['1 ms before validFrom', from - 1, false],
      ['at validFrom', from, true],
      ['inside', from + HOUR, true],
      ['1 ms before validTo', to - 1, true],
      ['at validTo (exclusive)', to, false],
      ['after validTo', to + HOUR, false],
    ])('%s', (_name, now, applies) => {
      const product = book({ campaignPrices: [retailCampaign(1500, { validFrom: from, validTo: to })] });
      expect(priceFor(product, GUEST, NO_STORE, now).source).toBe(applies ? 'campaign' : 'shop');
      const forBusiness = book({ campaignPrices: [businessCampaign(1500, { validFrom: from, validTo: to })] });
      expect(priceFor(forBusiness, business(), NO_STORE, now).source).toBe(applies ? 'campaign' : 'shop');
    });

    it.each([
      ['only validFrom, after it', { validFrom: NOW - 1 }, true],
      ['only validFrom, before it', { validFrom: NOW + 1 }, false],
      ['only validTo, before it', { validTo: NOW + 1 }, true],
      ['only validTo, at it', { validTo: NOW }, false],
      ['an empty window', { validFrom: NOW, validTo: NOW }, false],
      ['a reversed window', { validFrom: NOW + 1, validTo: NOW - 1 }, false],
    ])('%s', (_name, window, applies) => {
      expect(priceFor(book({ campaignPrices: [retailCampaign(1500, window)] }), GUEST, NO_STORE, NOW).source).toBe(
        applies ? 'campaign' : 'shop',
      );
    });

    it('a cheaper campaign outside its window does not hide a valid one', () => {
      const product = book({ campaignPrices: [retailCampaign(1000, { validTo: NOW }), retailCampaign(1600, { validFrom: NOW })] });
      expect(priceFor(product, GUEST, NO_STORE, NOW)).toMatchObject({ priceCents: 1600, source: 'campaign' });
    });
  });
});

describe('retail strike-through price', () => {
  it.each([
    ['list price higher than the shop price', 2500, 2500, 20],
    ['list price equal to the shop price', 2000, null, 0],
    ['list price lower than the shop price', 1800, null, 0],
    ['list price 0 means none', 0, null, 0],
    ['list price null', null, null, 0],
    ['no list price', undefined, null, 0],
  ] as const)('nothing applies, %s', (_name, originalPriceCents, strikeThroughCents, discountPercent) => {
    expect(priceFor(book({ originalPriceCents }), GUEST, NO_STORE, NOW)).toEqual({
      priceCents: 2000,
      strikeThroughCents,
      vatIncluded: true,
      discountPercent,
      source: 'shop',
    });
  });

  it.each([
    ['store discount', GUEST, 1900, 5, 'store-discount'],
    ['client discount', simple(20), 1600, 20, 'client-discount'],
  ] as const)(
    'a %s strikes through the shop price even with a higher list price',
    (_name, customer, priceCents, discountPercent, source) => {
      expect(priceFor(book({ originalPriceCents: 3000 }), customer, STORE, NOW)).toEqual({
        priceCents,
        strikeThroughCents: 2000,
        vatIncluded: true,
        discountPercent,
        source,
      });
    },
  );

  it.each([
    // discountPercent is (strike - price) / strike rounded half up to a whole percent.
    [3000, 1999, 33], // 33.37%
    [1299, 1169, 10], // 10.008%
    [200, 199, 1], // exactly 0.5% -> 1
    [1000, 995, 1], // exactly 0.5% -> 1
    [300, 299, 0], // 0.33% -> 0
    [2000, 1990, 1], // exactly 0.5% -> 1
    [201, 200, 0], // 0.4975% -> 0
    [800, 700, 13], // exactly 12.5% -> 13
  ])('list %i, shop %i: %i%%', (originalPriceCents, shopPriceCents, discountPercent) => {
    expect(priceFor(book({ originalPriceCents, shopPriceCents }), GUEST, NO_STORE, NOW)).toMatchObject({
      priceCents: shopPriceCents,
      strikeThroughCents: originalPriceCents,
      discountPercent,
    });
  });
});

describe('rounding half up after every percentage', () => {
  it.each([
    [1005, 10, 905], // 904.5
    [15, 10, 14], // 13.5
    [1299, 50, 650], // 649.5
    [201, 50, 101], // 100.5
    [2150, 7, 2000], // 1999.5, which floating point makes 1999.4999…
    [250, 7, 233], // 232.5, likewise
    [30, 55, 14], // 13.5, likewise
    [1000, 0.15, 999], // 998.5
    [1001, 15, 851], // 850.85
    [1299, 5, 1234], // 1234.05
    [1003, 12.5, 878], // 877.625
    [999, 33.3, 666], // 666.333
    [2000, 12.5, 1750], // exact
    [1005, 100, 0],
    [1005, 0, 1005],
  ])('%i cents less %d%% is %i', (shopPriceCents, percent, priceCents) => {
    expect(priceFor(book({ shopPriceCents }), simple(percent), NO_STORE, NOW).priceCents).toBe(priceCents);
    expect(priceFor(book({ shopPriceCents }), GUEST, { guestDiscountPercent: percent, loggedInDiscountPercent: 0 }, NOW).priceCents).toBe(
      priceCents,
    );
    expect(priceFor(book({ shopPriceCents }), business(percent), NO_STORE, NOW).priceCents).toBe(priceCents);
  });

  it('business: the company discount on the list price rounds half up', () => {
    // 1005 less 10% = 904.5 -> 905; the product's own discount (0.5%) is smaller.
    expect(priceFor(book({ originalPriceCents: 1005, shopPriceCents: 1000 }), business(10), NO_STORE, NOW)).toMatchObject({
      priceCents: 905,
      source: 'company-discount',
    });
  });
});

describe('business customer', () => {
  const noStrike = { strikeThroughCents: null, vatIncluded: true, discountPercent: 0 };

  it.each([
    ['no list price: company discount off the shop price', undefined, 10, 1800, 'company-discount'],
    ['no list price, no company discount', undefined, undefined, 2000, 'shop'],
    ['no list price, 0% company discount', undefined, 0, 2000, 'shop'],
    ['own discount 20% larger than the company discount 10%', 2500, 10, 2000, 'shop'],
    ['own discount 20% smaller than the company discount 30%', 2500, 30, 1750, 'company-discount'],
    ['own discount 20% equal to the company discount 20%', 2500, 20, 2000, 'shop'],
    ['list price, no company discount', 2500, undefined, 2000, 'shop'],
    ['company discount 100%', 2500, 100, 0, 'company-discount'],
    // A list price below the shop price is ignored: the discount comes off the shop price.
    ['list price lower than the shop price', 1800, 10, 1800, 'company-discount'],
    ['list price equal to the shop price', 2000, 10, 1800, 'company-discount'],
    ['list price 0 means none', 0, 10, 1800, 'company-discount'],
  ] as const)('%s', (_name, originalPriceCents, companyDiscount, priceCents, source) => {
    expect(priceFor(book({ originalPriceCents }), business(companyDiscount), NO_STORE, NOW)).toEqual({ priceCents, ...noStrike, source });
  });

  it('a non-whole own discount is compared exactly', () => {
    // Own discount (3000 - 1999) / 3000 = 33.3667%.
    expect(priceFor(book({ originalPriceCents: 3000, shopPriceCents: 1999 }), business(33), NO_STORE, NOW)).toMatchObject({
      priceCents: 1999,
      source: 'shop',
    });
    expect(priceFor(book({ originalPriceCents: 3000, shopPriceCents: 1999 }), business(34), NO_STORE, NOW)).toMatchObject({
      priceCents: 1980,
      source: 'company-discount',
    });
  });

  it('ignores store and client discounts', () => {
    const customer: Customer = { kind: 'BUSINESS', clientDiscountPercent: 50 };
    expect(priceFor(book(), customer, { guestDiscountPercent: 50, loggedInDiscountPercent: 50 }, NOW)).toEqual({
      priceCents: 2000,
      ...noStrike,
      source: 'shop',
    });
  });

  it.each([
    ['lower than the company price wins', [businessCampaign(1500)], 1500, 'campaign'],
    ['the lowest business campaign wins', [businessCampaign(1600), businessCampaign(1500)], 1500, 'campaign'],
    ['equal to the company price: the company discount stays', [businessCampaign(1800)], 1800, 'company-discount'],
    ['higher than the company price loses', [businessCampaign(1900)], 1800, 'company-discount'],
    ['a retail campaign is not for business', [retailCampaign(1000)], 1800, 'company-discount'],
    ['outside its window', [businessCampaign(1000, { validTo: NOW })], 1800, 'company-discount'],
  ] as const)('business campaign %s', (_name, campaignPrices, priceCents, source) => {
    expect(priceFor(book({ campaignPrices: [...campaignPrices] }), business(10), NO_STORE, NOW)).toEqual({
      priceCents,
      ...noStrike,
      source,
    });
  });

  it('a business campaign beats the shop price when the own discount wins', () => {
    expect(priceFor(book({ originalPriceCents: 2500, campaignPrices: [businessCampaign(1900)] }), business(10), NO_STORE, NOW)).toEqual({
      priceCents: 1900,
      ...noStrike,
      source: 'campaign',
    });
  });
});

describe('wholesale customer', () => {
  const exVat = { strikeThroughCents: null, vatIncluded: false, discountPercent: 0 };

  it.each([
    ['custom price > 0 wins over the wholesale price', 1200, 1500, 1200, 'custom'],
    ['custom price may be above the wholesale price', 1600, 1500, 1600, 'custom'],
    ['custom price 0 -> wholesale price', 0, 1500, 1500, 'wholesale'],
    ['custom price null -> wholesale price', null, 1500, 1500, 'wholesale'],
    ['no custom price -> wholesale price', undefined, 1500, 1500, 'wholesale'],
    ['custom price, wholesale price 0', 1200, 0, 1200, 'custom'],
    ['wholesale price 0 -> shop price excluding VAT', 0, 0, 1835, 'shop-excl-vat'],
    ['wholesale price null -> shop price excluding VAT', null, null, 1835, 'shop-excl-vat'],
    ['no prices -> shop price excluding VAT', undefined, undefined, 1835, 'shop-excl-vat'],
  ] as const)('%s', (_name, custom, wholesalePriceCents, priceCents, source) => {
    // 2000 / 1.09 = 1834.86
    expect(priceFor(book({ wholesalePriceCents }), wholesale(custom), NO_STORE, NOW)).toEqual({ priceCents, ...exVat, source });
  });

  it.each([
    [1090, 9, 1000],
    [1299, 9, 1192], // 1191.74
    [1000, 9, 917], // 917.43
    [100, 9, 92], // 91.74
    [1, 9, 1], // 0.917
    [0, 9, 0],
    [1240, 24, 1000],
    [1000, 24, 806], // 806.45
    [999, 24, 806], // 805.65
    [2499, 24, 2015], // 2015.32
    [31, 24, 25],
    // With 9% and 24% the quotient is never exactly .5 (109 and 31 are odd); the former standard
    // rate of 20% reaches it.
    [3, 20, 3], // 2.5
    [1503, 20, 1253], // 1252.5
    [1500, 0, 1500],
  ])('shop %i cents with %i%% VAT is %i cents without', (shopPriceCents, vatRatePercent, priceCents) => {
    expect(priceFor(book({ shopPriceCents, vatRatePercent }), wholesale(), NO_STORE, NOW)).toEqual({
      priceCents,
      ...exVat,
      source: 'shop-excl-vat',
    });
  });

  it('ignores campaigns, store, client and company discounts and the list price', () => {
    const product = book({ originalPriceCents: 3000, campaignPrices: [retailCampaign(100), businessCampaign(100)] });
    const customer: Customer = { kind: 'WHOLESALE', clientDiscountPercent: 50, companyDiscountPercent: 50 };
    expect(priceFor(product, customer, { guestDiscountPercent: 50, loggedInDiscountPercent: 50 }, NOW)).toEqual({
      priceCents: 1835,
      ...exVat,
      source: 'shop-excl-vat',
    });
  });

  it('e-books are priced like any other product', () => {
    expect(priceFor(ebook({ wholesalePriceCents: 1500 }), wholesale(), STORE, NOW)).toEqual({
      priceCents: 1500,
      ...exVat,
      source: 'wholesale',
    });
  });
});

describe('every customer kind', () => {
  const product = book({ originalPriceCents: 2500, wholesalePriceCents: 1400 });
  it.each([
    ['GUEST', GUEST, { priceCents: 1900, strikeThroughCents: 2000, vatIncluded: true, discountPercent: 5, source: 'store-discount' }],
    ['SIMPLE', simple(), { priceCents: 1800, strikeThroughCents: 2000, vatIncluded: true, discountPercent: 10, source: 'store-discount' }],
    [
      'BUSINESS',
      business(30),
      { priceCents: 1750, strikeThroughCents: null, vatIncluded: true, discountPercent: 0, source: 'company-discount' },
    ],
    ['WHOLESALE', wholesale(), { priceCents: 1400, strikeThroughCents: null, vatIncluded: false, discountPercent: 0, source: 'wholesale' }],
  ] as const)('%s', (_kind, customer, expected) => {
    expect(priceFor(product, customer, STORE, NOW)).toEqual(expected);
  });
});

describe('invalid data throws RangeError', () => {
  const BAD_PERCENTS = [-1, -0.01, 100.01, 101, Number.NaN, Number.POSITIVE_INFINITY];
  const kinds: CustomerKind[] = ['GUEST', 'SIMPLE', 'BUSINESS', 'WHOLESALE'];

  it.each(BAD_PERCENTS)('percentage %d', (bad) => {
    for (const kind of kinds) {
      expect(() => priceFor(book(), { kind }, { guestDiscountPercent: bad, loggedInDiscountPercent: 0 }, NOW)).toThrow(RangeError);
      expect(() => priceFor(book(), { kind }, { guestDiscountPercent: 0, loggedInDiscountPercent: bad }, NOW)).toThrow(RangeError);
      expect(() => priceFor(book(), { kind, clientDiscountPercent: bad }, NO_STORE, NOW)).toThrow(RangeError);
      expect(() => priceFor(book(), { kind, companyDiscountPercent: bad }, NO_STORE, NOW)).toThrow(RangeError);
      expect(() => priceFor(book({ vatRatePercent: bad }), { kind }, NO_STORE, NOW)).toThrow(RangeError);
    }
  });

  it.each([0, 100])('percentage %d is accepted', (edge) => {
    const store = { guestDiscountPercent: edge, loggedInDiscountPercent: edge };
    for (const kind of kinds) {
      expect(() =>
        priceFor(book({ vatRatePercent: edge }), { kind, clientDiscountPercent: edge, companyDiscountPercent: edge }, store, NOW),
      ).not.toThrow();
    }
  });

  it('a gift card is checked too', () => {
    expect(() => priceFor(book({ type: 'GIFT_CARD' }), GUEST, { guestDiscountPercent: 120, loggedInDiscountPercent: 0 }, NOW)).toThrow(
      RangeError,
    );
  });

  it.each([-1, 12.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53])('price %d', (bad) => {
    for (const customer of [GUEST, simple(), business(), wholesale()]) {
      expect(() => priceFor(book({ shopPriceCents: bad }), customer, NO_STORE, NOW)).toThrow(RangeError);
      expect(() => priceFor(book({ originalPriceCents: bad }), customer, NO_STORE, NOW)).toThrow(RangeError);
      expect(() => priceFor(book({ wholesalePriceCents: bad }), customer, NO_STORE, NOW)).toThrow(RangeError);
      expect(() => priceFor(book({ campaignPrices: [retailCampaign(bad)] }), customer, NO_STORE, NOW)).toThrow(RangeError);
      expect(() => priceFor(book({ campaignPrices: [businessCampaign(bad)] }), customer, NO_STORE, NOW)).toThrow(RangeError);
      expect(() => priceFor(book(), { ...customer, companyCustomPriceCents: bad }, NO_STORE, NOW)).toThrow(RangeError);
    }
  });

  it('a missing shop price or VAT rate', () => {
    expect(() => priceFor({ type: 'BOOK', vatRatePercent: 9 } as PricedProduct, GUEST, NO_STORE, NOW)).toThrow(RangeError);
    expect(() => priceFor({ type: 'BOOK', shopPriceCents: 2000 } as PricedProduct, GUEST, NO_STORE, NOW)).toThrow(RangeError);
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY])('campaign validity %d', (bad) => {
    expect(() => priceFor(book({ campaignPrices: [retailCampaign(1500, { validFrom: bad })] }), GUEST, NO_STORE, NOW)).toThrow(RangeError);
    expect(() => priceFor(book({ campaignPrices: [retailCampaign(1500, { validTo: bad })] }), GUEST, NO_STORE, NOW)).toThrow(RangeError);
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY])('now %d', (bad) => {
    expect(() => priceFor(book(), GUEST, NO_STORE, bad)).toThrow(RangeError);
  });

  it('an unknown customer kind', () => {
    expect(() => priceFor(book(), { kind: 'VIP' } as unknown as Customer, NO_STORE, NOW)).toThrow(RangeError);
  });
});

describe('purity', () => {
  it('does not modify its arguments', () => {
    const product = book({ originalPriceCents: 2500, campaignPrices: [retailCampaign(1500), businessCampaign(1400)] });
    const snapshot = structuredClone(product);
    for (const customer of [GUEST, simple(20), business(30), wholesale(1200)]) priceFor(product, customer, STORE, NOW);
    expect(product).toEqual(snapshot);
  });
});
