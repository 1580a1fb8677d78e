import type { Db } from '../../../db/database.js';
import type { Language } from '../../../i18n/index.js';
import { inService, type DeliveryMethod, type OfferedMethod } from './delivery.rules.js';

/** The delivery methods the store offers (switched on, priced there), in display order, with names in `language` (else Estonian). */
export async function deliveryMethodsOf(db: Db, storeCode: string, language: Language): Promise<OfferedMethod[]> {
  // The query leaves the others out already; the filter says so to the type.
  return (await methodsWhere(db, storeCode, language, { offeredOnly: true })).filter(inService);
}

/**
 * One method, whether the store still offers it or not (undefined: no such method). A basket whose
 * chosen method the back office withdrew (switched it off, or removed its price in the store) keeps
 * the choice, to say it is no longer offered.
 */
export async function deliveryMethodOf(db: Db, storeCode: string, language: Language, id: number): Promise<DeliveryMethod | undefined> {
  const [method] = await methodsWhere(db, storeCode, language, { offeredOnly: false, id });
  return method;
}

async function methodsWhere(
  db: Db,
  storeCode: string,
  language: Language,
  only: { offeredOnly: boolean; id?: number },
): Promise<DeliveryMethod[]> {
  let query = db
    .selectFrom('delivery_method as m')
    .leftJoin('delivery_method_price as p', (join) => join.onRef('p.delivery_method_id', '=', 'm.id').on('p.store_code', '=', storeCode))
    .select([
      'm.id',
      'm.code',
      'm.kind',
      'm.carrier',
      'm.countries',
      'm.suits_digital_only',
      'm.suits_heavy',
      'm.days_min',
      'm.days_max',
      'm.vat_rate_percent',
      'p.price_cents',
      'p.free_over_cents',
      'm.is_active',
    ]);
  if (only.offeredOnly) query = query.where('m.is_active', '=', true).where('p.price_cents', 'is not', null);
  if (only.id !== undefined) query = query.where('m.id', '=', only.id);
  const rows = await query.orderBy('m.position').orderBy('m.id').execute();
  if (rows.length === 0) return [];
  const ids = rows.map((row) => Number(row.id));
  const [names, fees, shops] = await Promise.all([
    db.selectFrom('delivery_method_name').selectAll().where('delivery_method_id', 'in', ids).execute(),
    db.selectFrom('delivery_country_fee').selectAll().where('delivery_method_id', 'in', ids).execute(),
    db
      .selectFrom('delivery_method_shop as ms')
      .innerJoin('shop', 'shop.id', 'ms.shop_id')
      // Named in the language, else in Estonian (which every shop has), as the shops' own answer names them.
      .leftJoin('shop_name as sn', (join) => join.onRef('sn.shop_id', '=', 'shop.id').on('sn.language', '=', language))
      .leftJoin('shop_name as se', (join) => join.onRef('se.shop_id', '=', 'shop.id').on('se.language', '=', 'et'))
      .select(['ms.delivery_method_id', 'shop.id', 'shop.code', 'shop.city', 'sn.name', 'se.name as et_name'])
      .where('ms.delivery_method_id', 'in', ids)
      .where('shop.is_active', '=', true)
      .orderBy('shop.position')
      .orderBy('shop.id')
      .execute(),
  ]);
  return rows.map((row) => {
    const id = Number(row.id);
    const named = names.filter((name) => Number(name.delivery_method_id) === id);
    return {
      id,
      code: row.code,
      kind: row.kind,
      carrier: row.carrier,
      name: (named.find((name) => name.language === language) ?? named.find((name) => name.language === 'et'))?.name ?? row.code,
      countries: row.countries.split(',').filter((code) => code !== ''),
      suitsDigitalOnly: Boolean(row.suits_digital_only),
      suitsHeavy: Boolean(row.suits_heavy),
      daysMin: row.days_min,
      daysMax: row.days_max,
      vatRatePercent: row.vat_rate_percent,
      priceCents: row.price_cents,
      freeOverCents: row.free_over_cents,
      isActive: Boolean(row.is_active),
      countryFees: new Map(fees.filter((fee) => Number(fee.delivery_method_id) === id).map((fee) => [fee.country_code, fee.price_cents])),
      shops: shops
        .filter((shop) => Number(shop.delivery_method_id) === id)
        .map((shop) => ({ id: Number(shop.id), code: shop.code, name: shop.name ?? shop.et_name ?? shop.code, city: shop.city })),
    };
  });
}

export function findParcelMachine(db: Db, id: number) {
  return db.selectFrom('parcel_machine').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The active machines of the carriers in one country, for the delivery-methods answer. */
export function parcelMachinesOf(db: Db, carriers: readonly string[], countryCode: string) {
  if (carriers.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('parcel_machine')
    .select(['id', 'carrier', 'code', 'name', 'city', 'address', 'country_code'])
    .where('carrier', 'in', [...carriers])
    .where('country_code', '=', countryCode)
    .where('is_active', '=', true)
    .orderBy('city')
    .orderBy('name')
    .orderBy('id')
    .execute();
}

/** A shop's code, active or not (undefined: no such shop). */
export async function shopCodeOf(db: Db, shopId: number): Promise<string | undefined> {
  const row = await db.selectFrom('shop').select('code').where('id', '=', shopId).executeTakeFirst();
  return row?.code;
}
