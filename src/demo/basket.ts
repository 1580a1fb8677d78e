import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { DEMO_LOGINS } from './accounts.js';

// The demo shop's delivery methods, parcel machines and discount codes, so a basket can be filled,
// discounted and given a delivery after `npm start`. Written only while none of the three is there
// (an operator who imported any of them owns them) and only into the demo chain (its shops).

const PICKUP_SHOPS = ['TLN-VIRU', 'TLN-SOLARIS', 'TRT-KAUBAMAJA', 'PRN'];
const DRIVE_IN_SHOP = 'TLN-ULEMISTE';

interface MethodDef {
  code: string;
  kind: 'PARCEL_MACHINE' | 'COURIER' | 'EXPRESS_COURIER' | 'SHOP_PICKUP' | 'DRIVE_IN' | 'INTERNATIONAL';
  carrier?: string;
  names: { et: string; en: string; ru: string };
  /** Cents per store, and free from (cents). */
  prices: Array<[string, number, number | null]>;
  days: [number, number];
  heavy: boolean;
  digital?: boolean;
  shops?: string[];
  fees?: Array<[string, number]>;
}

const METHODS: MethodDef[] = [
  {
    code: 'OMNIVA',
    kind: 'PARCEL_MACHINE',
    carrier: 'OMNIVA',
    names: { et: 'Omniva pakiautomaat', en: 'Omniva parcel machine', ru: 'Почтомат Omniva' },
    prices: [
      ['WEB', 299, 3500],
      ['WEB2', 349, null],
    ],
    days: [1, 3],
    heavy: false,
  },
  {
    code: 'DPD',
    kind: 'PARCEL_MACHINE',
    carrier: 'DPD',
    names: { et: 'DPD pakiautomaat', en: 'DPD parcel machine', ru: 'Почтомат DPD' },
    prices: [
      ['WEB', 299, 3500],
      ['WEB2', 349, null],
    ],
    days: [1, 2],
    heavy: false,
  },
  {
    code: 'COURIER',
    kind: 'COURIER',
    names: { et: 'Kuller', en: 'Courier', ru: 'Курьер' },
    prices: [
      ['WEB', 590, 6000],
      ['WEB2', 690, null],
    ],
    days: [1, 2],
    heavy: true,
  },
  {
    code: 'EXPRESS',
    kind: 'EXPRESS_COURIER',
    names: {
      et: 'Kiirkuller (tellimused enne 12.00 samal päeval)',
      en: 'Express courier (same day before 12:00)',
      ru: 'Экспресс-курьер (в тот же день до 12:00)',
    },
    prices: [['WEB', 990, null]],
    days: [0, 0],
    heavy: true,
  },
  {
    code: 'SHOP',
    kind: 'SHOP_PICKUP',
    names: { et: 'Kauplusesse', en: 'Pick up in a shop', ru: 'Самовывоз из магазина' },
    prices: [
      ['WEB', 0, null],
      ['WEB2', 0, null],
    ],
    days: [2, 4],
    heavy: true,
    shops: PICKUP_SHOPS,
  },
  {
    code: 'DRIVE-IN',
    kind: 'DRIVE_IN',
    names: { et: 'Drive-in Ülemistes', en: 'Drive-in at Ülemiste', ru: 'Драйв-ин в Юлемисте' },
    prices: [['WEB', 100, 2000]],
    days: [1, 2],
    heavy: true,
    shops: [DRIVE_IN_SHOP],
  },
  {
    code: 'WORLD',
    kind: 'INTERNATIONAL',
    names: { et: 'Välismaale', en: 'Abroad', ru: 'За границу' },
    prices: [['WEB', 1500, null]],
    days: [3, 10],
    heavy: true,
    fees: [
      ['LV', 790],
      ['LT', 890],
      ['FI', 1190],
      ['SE', 1490],
      ['DE', 1590],
    ],
  },
  {
    code: 'E-MAIL',
    kind: 'COURIER',
    names: { et: 'E-postiga (e-raamatud)', en: 'By e-mail (e-books)', ru: 'По e-mail (электронные книги)' },
    prices: [
      ['WEB', 0, null],
      ['WEB2', 0, null],
    ],
    days: [0, 0],
    heavy: true,
    digital: true,
  },
];

const MACHINES: Array<[carrier: string, code: string, name: string, city: string, address: string]> = [
  ['OMNIVA', '9001', 'Viru Keskus', 'Tallinn', 'Viru väljak 4'],
  ['OMNIVA', '9002', 'Ülemiste keskus', 'Tallinn', 'Suur-Sõjamäe 4'],
  ['OMNIVA', '9003', 'Lõunakeskus', 'Tartu', 'Ringtee 75'],
  ['OMNIVA', '9004', 'Port Artur', 'Pärnu', 'Lai 11'],
  ['OMNIVA', '9005', 'Astri keskus', 'Narva', 'Tallinna mnt 41'],
  ['DPD', 'EE101', 'Rocca al Mare', 'Tallinn', 'Paldiski mnt 102'],
  ['DPD', 'EE102', 'Kristiine keskus', 'Tallinn', 'Endla 45'],
  ['DPD', 'EE201', 'Eeden', 'Tartu', 'Kalda tee 1c'],
  ['DPD', 'EE301', 'Pärnu Keskus', 'Pärnu', 'Aida 7'],
];

const DAY = 86_400_000;

/** The demo discount codes (README lists them). */
function codes(now: number) {
  const base = {
    valid_from: null,
    valid_to: null,
    max_uses: null,
    min_basket_cents: null,
    stores: '',
    free_parcel_machine: false,
    is_active: true,
  };
  return [
    { ...base, code: 'TERE10', percent: 10, amount_cents: null, customer_kinds: 'GUEST,SIMPLE,BUSINESS' },
    { ...base, code: 'RAAMAT5', percent: null, amount_cents: 500, min_basket_cents: 3000, customer_kinds: 'GUEST,SIMPLE' },
    { ...base, code: 'TASUTA', percent: null, amount_cents: null, free_parcel_machine: true, customer_kinds: 'GUEST,SIMPLE,BUSINESS' },
    {
      ...base,
      code: 'SUVI2026',
      percent: 15,
      amount_cents: null,
      customer_kinds: 'GUEST,SIMPLE',
      valid_from: now - 30 * DAY,
      valid_to: now + 60 * DAY,
      max_uses: 1000,
    },
    {
      ...base,
      code: 'VANA',
      percent: 20,
      amount_cents: null,
      customer_kinds: 'GUEST,SIMPLE',
      valid_from: now - 400 * DAY,
      valid_to: now - 300 * DAY,
    },
  ].map((code) => ({ ...code, created_at: now, updated_at: now }));
}

/** Writes the demo's delivery methods, machines and codes; returns whether it did. */
export async function writeBasketDemo(trx: Transaction<Database>, now: number): Promise<boolean> {
  for (const table of ['delivery_method', 'parcel_machine', 'discount_code'] as const) {
    if (await trx.selectFrom(table).select('id').limit(1).executeTakeFirst()) return false;
  }
  // Only into the demo chain: its logins are the mark (an imported catalogue has none of them).
  if (!(await trx.selectFrom('app_user').select('id').where('email', '=', DEMO_LOGINS[0]!.email).executeTakeFirst())) return false;
  const shops = await trx
    .selectFrom('shop')
    .select(['id', 'code'])
    .where('code', 'in', [...PICKUP_SHOPS, DRIVE_IN_SHOP])
    .execute();
  if (shops.length === 0) return false;
  const shopId = new Map(shops.map((shop) => [shop.code, Number(shop.id)]));
  for (const [position, def] of METHODS.entries()) {
    const { id } = await trx
      .insertInto('delivery_method')
      .values({
        code: def.code,
        kind: def.kind,
        carrier: def.carrier ?? null,
        countries: def.fees ? def.fees.map(([country]) => country).join(',') : 'EE',
        suits_digital_only: def.digital ?? false,
        suits_heavy: def.heavy,
        days_min: def.days[0],
        days_max: def.days[1],
        vat_rate_percent: 24,
        is_active: true,
        position,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const methodId = Number(id);
    await trx
      .insertInto('delivery_method_name')
      .values(Object.entries(def.names).map(([language, name]) => ({ delivery_method_id: methodId, language, name })))
      .execute();
    await trx
      .insertInto('delivery_method_price')
      .values(
        def.prices.map(([store_code, price_cents, free_over_cents]) => ({
          delivery_method_id: methodId,
          store_code,
          price_cents,
          free_over_cents,
        })),
      )
      .execute();
    if (def.fees) {
      await trx
        .insertInto('delivery_country_fee')
        .values(def.fees.map(([country_code, price_cents]) => ({ delivery_method_id: methodId, country_code, price_cents })))
        .execute();
    }
    const pickup = (def.shops ?? []).map((code) => shopId.get(code)).filter((shop): shop is number => shop !== undefined);
    if (pickup.length > 0) {
      await trx
        .insertInto('delivery_method_shop')
        .values(pickup.map((shop_id) => ({ delivery_method_id: methodId, shop_id })))
        .execute();
    }
  }
  await trx
    .insertInto('parcel_machine')
    .values(
      MACHINES.map(([carrier, code, name, city, address]) => ({
        carrier,
        code,
        name,
        city,
        address,
        country_code: 'EE',
        is_active: true,
        created_at: now,
        updated_at: now,
      })),
    )
    .execute();
  await trx.insertInto('discount_code').values(codes(now)).execute();
  return true;
}
