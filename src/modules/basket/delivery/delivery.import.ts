import { Type, type Static } from '@sinclair/typebox';
import type { Transaction } from 'kysely';
import type { Database } from '../../../db/schema.js';
import {
  Code,
  LineError,
  Money,
  Name,
  Position,
  Store,
  Translated,
  cents,
  inLineTransaction,
  lineKind,
  lineParser,
  nameRows,
  unique,
} from '../../catalogue-import/index.js';
import type { DeliveryKind } from '../basket.tables.js';

// `import delivery-methods` and `import parcel-machines`. A method line replaces its names,
// store prices, country fees and pickup shops whole; machines are upserted by carrier and code.

const Country = Type.String({ pattern: '^[A-Z]{2}$' });
const KINDS: DeliveryKind[] = ['PARCEL_MACHINE', 'COURIER', 'EXPRESS_COURIER', 'SHOP_PICKUP', 'DRIVE_IN', 'INTERNATIONAL'];

const MethodLine = Type.Object(
  {
    code: Code(),
    kind: Type.Union(KINDS.map((kind) => Type.Literal(kind))),
    carrier: Type.Optional(Type.Union([Code('carrier'), Type.Null()])),
    names: Translated(200),
    prices: Type.Array(
      Type.Object(
        { store: Store, price: Money, freeOver: Type.Optional(Type.Union([Money, Type.Null()])) },
        { additionalProperties: false },
      ),
      {
        minItems: 1,
        maxItems: 10,
      },
    ),
    countries: Type.Optional(Type.Array(Country, { minItems: 1, maxItems: 300 })),
    countryFees: Type.Optional(
      Type.Array(Type.Object({ country: Country, price: Money }, { additionalProperties: false }), { maxItems: 300 }),
    ),
    shops: Type.Optional(Type.Array(Code('shop code'), { maxItems: 500 })),
    suitsDigitalOnly: Type.Optional(Type.Boolean()),
    suitsHeavy: Type.Optional(Type.Boolean()),
    daysMin: Type.Integer({ minimum: 0, maximum: 365 }),
    daysMax: Type.Integer({ minimum: 0, maximum: 365 }),
    vatRate: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
    active: Type.Optional(Type.Boolean()),
    position: Type.Optional(Position),
  },
  { additionalProperties: false },
);
type MethodLine = Static<typeof MethodLine>;

function checkMethod(line: MethodLine): MethodLine {
  if (line.daysMax < line.daysMin) throw new LineError('/daysMax: must not be less than daysMin');
  unique(
    line.prices.map((price) => price.store),
    'prices',
  );
  if (line.kind === 'PARCEL_MACHINE' && !line.carrier) throw new LineError('/carrier: a parcel-machine method names its carrier');
  if (line.kind === 'SHOP_PICKUP' && !line.shops?.length) throw new LineError('/shops: shop pickup lists its shops');
  if (line.kind === 'DRIVE_IN' && line.shops?.length !== 1) throw new LineError('/shops: drive-in pickup is at exactly one shop');
  if (line.kind === 'INTERNATIONAL' && !line.countryFees?.length)
    throw new LineError('/countryFees: international delivery needs its fee table');
  if (line.kind !== 'INTERNATIONAL' && line.countryFees?.length)
    throw new LineError('/countryFees: only international delivery has a fee table');
  unique(line.shops ?? [], 'shops');
  unique(
    (line.countryFees ?? []).map((fee) => fee.country),
    'countryFees',
  );
  for (const [index, price] of line.prices.entries()) {
    cents(price.price, `prices/${index}/price`);
    if (price.freeOver != null) cents(price.freeOver, `prices/${index}/freeOver`);
  }
  return line;
}

async function upsertMethod(trx: Transaction<Database>, line: MethodLine, now: number): Promise<string> {
  const shopIds: number[] = [];
  for (const code of line.shops ?? []) {
    const shop = await trx.selectFrom('shop').select('id').where('code', '=', code).executeTakeFirst();
    if (!shop) throw new LineError(`/shops: there is no shop "${code}"`);
    shopIds.push(Number(shop.id));
  }
  const fees = line.countryFees ?? [];
  const columns = {
    kind: line.kind,
    carrier: line.carrier ?? null,
    countries: (line.kind === 'INTERNATIONAL' ? fees.map((fee) => fee.country) : (line.countries ?? ['EE'])).join(','),
    suits_digital_only: line.suitsDigitalOnly ?? false,
    suits_heavy: line.suitsHeavy ?? true,
    days_min: line.daysMin,
    days_max: line.daysMax,
    vat_rate_percent: line.vatRate ?? 24,
    is_active: line.active ?? true,
    position: line.position ?? 0,
  };
  const stored = await trx.selectFrom('delivery_method').select('id').where('code', '=', line.code).executeTakeFirst();
  let id: number;
  if (stored) {
    id = Number(stored.id);
    await trx
      .updateTable('delivery_method')
      .set({ ...columns, updated_at: now })
      .where('id', '=', id)
      .execute();
    for (const table of ['delivery_method_name', 'delivery_method_price', 'delivery_country_fee', 'delivery_method_shop'] as const) {
      await trx.deleteFrom(table).where('delivery_method_id', '=', id).execute();
    }
  } else {
    id = Number(
      (
        await trx
          .insertInto('delivery_method')
          .values({ ...columns, code: line.code, created_at: now, updated_at: now })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id,
    );
  }
  await trx
    .insertInto('delivery_method_name')
    .values(nameRows(line.names).map(({ language, name }) => ({ delivery_method_id: id, language, name })))
    .execute();
  await trx
    .insertInto('delivery_method_price')
    .values(
      line.prices.map((price, index) => ({
        delivery_method_id: id,
        store_code: price.store,
        price_cents: cents(price.price, `prices/${index}/price`),
        free_over_cents: price.freeOver == null ? null : cents(price.freeOver, `prices/${index}/freeOver`),
      })),
    )
    .execute();
  if (fees.length > 0) {
    await trx
      .insertInto('delivery_country_fee')
      .values(
        fees.map((fee, index) => ({
          delivery_method_id: id,
          country_code: fee.country,
          price_cents: cents(fee.price, `countryFees/${index}/price`),
        })),
      )
      .execute();
  }
  if (shopIds.length > 0) {
    await trx
      .insertInto('delivery_method_shop')
      .values(shopIds.map((shop_id) => ({ delivery_method_id: id, shop_id })))
      .execute();
  }
  return stored ? 'updated' : 'created';
}

export const deliveryMethodsKind = lineKind(
  'import delivery-methods <file.ndjson> delivery methods, their prices per store and pickup shops',
  ({ db, clock, log }) => ({
    parse: lineParser(MethodLine, checkMethod),
    apply: (line: MethodLine) => inLineTransaction(db, log, (trx) => upsertMethod(trx, line, clock.now())),
  }),
);

const MachineLine = Type.Object(
  {
    carrier: Code('carrier'),
    code: Code("the carrier's machine id"),
    name: Name(200),
    city: Name(100),
    address: Name(300),
    country: Type.Optional(Country),
    active: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
type MachineLine = Static<typeof MachineLine>;

async function upsertMachine(trx: Transaction<Database>, line: MachineLine, now: number): Promise<string> {
  const columns = {
    name: line.name,
    city: line.city,
    address: line.address,
    country_code: line.country ?? 'EE',
    is_active: line.active ?? true,
  };
  const stored = await trx
    .selectFrom('parcel_machine')
    .selectAll()
    .where('carrier', '=', line.carrier)
    .where('code', '=', line.code)
    .executeTakeFirst();
  if (!stored) {
    await trx
      .insertInto('parcel_machine')
      .values({ ...columns, carrier: line.carrier, code: line.code, created_at: now, updated_at: now })
      .execute();
    return 'created';
  }
  const same =
    stored.name === columns.name &&
    stored.city === columns.city &&
    stored.address === columns.address &&
    stored.country_code === columns.country_code &&
    Boolean(stored.is_active) === columns.is_active;
  if (same) return 'unchanged';
  await trx
    .updateTable('parcel_machine')
    .set({ ...columns, updated_at: now })
    .where('id', '=', stored.id)
    .execute();
  return 'updated';
}

export const parcelMachinesKind = lineKind(
  'import parcel-machines <file.ndjson> parcel machines of the carriers',
  ({ db, clock, log }) => ({
    parse: lineParser(MachineLine, (line) => line),
    apply: (line: MachineLine) => inLineTransaction(db, log, (trx) => upsertMachine(trx, line, clock.now())),
  }),
);
