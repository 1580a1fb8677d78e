import { Type, type Static } from '@sinclair/typebox';
import type { Transaction } from 'kysely';
import type { Database } from '../../../db/schema.js';
import {
  Code,
  DateValue,
  LineError,
  Money,
  Store,
  cents,
  inLineTransaction,
  lineKind,
  lineParser,
  optionalCents,
  unique,
  validityWindow,
} from '../../catalogue-import/index.js';
import { PRODUCT_TYPES } from '../../../db/product-types.js';
import type { DiscountConditionKind, DiscountConditionMode } from '../basket.tables.js';

// `import discount-codes`: the back office's vouchers, upserted by code (upper-cased: codes are
// compared case-insensitively). A line's conditions replace the code's. Uses are counted by
// orders, never by the import.

const Values = Type.Optional(Type.Array(Code(), { maxItems: 1000 }));
const Conditions = Type.Optional(
  Type.Object(
    {
      categories: Values,
      products: Values,
      bindings: Values,
      types: Type.Optional(Type.Array(Type.Union(PRODUCT_TYPES.map((type) => Type.Literal(type))), { maxItems: 20 })),
    },
    { additionalProperties: false },
  ),
);
const KIND = Type.Union([Type.Literal('GUEST'), Type.Literal('RETAIL'), Type.Literal('BUSINESS'), Type.Literal('WHOLESALE')]);

const DiscountCodeLine = Type.Object(
  {
    code: Type.String({ minLength: 1, maxLength: 40, pattern: '^[A-Za-z0-9_-]+$' }),
    percent: Type.Optional(Type.Union([Type.Number({ exclusiveMinimum: 0, maximum: 100 }), Type.Null()])),
    amount: Type.Optional(Type.Union([Money, Type.Null()])),
    validFrom: Type.Optional(Type.Union([DateValue, Type.Null()])),
    validTo: Type.Optional(Type.Union([DateValue, Type.Null()])),
    maxUses: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 100_000_000 }), Type.Null()])),
    minBasket: Type.Optional(Type.Union([Money, Type.Null()])),
    customerKinds: Type.Optional(Type.Array(KIND, { minItems: 1, maxItems: 4 })),
    stores: Type.Optional(Type.Array(Store, { maxItems: 10 })),
    freeParcelMachine: Type.Optional(Type.Boolean()),
    active: Type.Optional(Type.Boolean()),
    include: Conditions,
    exclude: Conditions,
  },
  { additionalProperties: false },
);
type DiscountCodeLine = Static<typeof DiscountCodeLine>;

interface CodeRecord {
  code: string;
  columns: {
    percent: number | null;
    amount_cents: number | null;
    valid_from: number | null;
    valid_to: number | null;
    max_uses: number | null;
    min_basket_cents: number | null;
    customer_kinds: string;
    stores: string;
    free_parcel_machine: boolean;
    is_active: boolean;
  };
  conditions: Array<{ mode: DiscountConditionMode; kind: DiscountConditionKind; value: string }>;
}

const CONDITION_KINDS = { categories: 'CATEGORY', products: 'PRODUCT', bindings: 'BINDING', types: 'TYPE' } as const;

function convert(line: DiscountCodeLine): CodeRecord {
  const percent = line.percent ?? null;
  const amountCents = optionalCents(line.amount, 'amount');
  if (percent !== null && amountCents !== null) throw new LineError('/amount: a code takes either a percent or an amount off, not both');
  if (percent === null && amountCents === null && line.freeParcelMachine !== true) {
    throw new LineError('/percent: a code needs a percent, an amount or freeParcelMachine');
  }
  const { start: validFrom, end: validTo } = validityWindow(line.validFrom, line.validTo, ['validFrom', 'validTo']);
  const kinds = line.customerKinds ?? ['GUEST', 'RETAIL', 'BUSINESS'];
  unique(kinds, 'customerKinds');
  const conditions: CodeRecord['conditions'] = [];
  for (const [mode, given] of [
    ['INCLUDE', line.include],
    ['EXCLUDE', line.exclude],
  ] as const) {
    for (const [key, kind] of Object.entries(CONDITION_KINDS) as Array<[keyof typeof CONDITION_KINDS, DiscountConditionKind]>) {
      const values = given?.[key] ?? [];
      unique(values, `${mode.toLowerCase()}/${key}`);
      for (const value of values) conditions.push({ mode, kind, value });
    }
  }
  return {
    code: line.code.toUpperCase(),
    columns: {
      percent,
      amount_cents: amountCents,
      valid_from: validFrom,
      valid_to: validTo,
      max_uses: line.maxUses ?? null,
      min_basket_cents: line.minBasket == null ? null : cents(line.minBasket, 'minBasket'),
      customer_kinds: kinds.map((kind) => (kind === 'RETAIL' ? 'SIMPLE' : kind)).join(','),
      stores: (line.stores ?? []).join(','),
      free_parcel_machine: line.freeParcelMachine ?? false,
      is_active: line.active ?? true,
    },
    conditions,
  };
}

const conditionKey = (c: { mode: string; kind: string; value: string }) => `${c.mode}:${c.kind}:${c.value}`;

async function upsertCode(trx: Transaction<Database>, record: CodeRecord, now: number): Promise<string> {
  const stored = await trx.selectFrom('discount_code').selectAll().where('code', '=', record.code).executeTakeFirst();
  const id = stored
    ? Number(stored.id)
    : Number(
        (
          await trx
            .insertInto('discount_code')
            .values({ ...record.columns, code: record.code, created_at: now, updated_at: now })
            .returning('id')
            .executeTakeFirstOrThrow()
        ).id,
      );
  const storedConditions = stored
    ? await trx.selectFrom('discount_code_condition').select(['mode', 'kind', 'value']).where('discount_code_id', '=', id).execute()
    : [];
  const sameConditions = storedConditions.map(conditionKey).sort().join('|') === record.conditions.map(conditionKey).sort().join('|');
  const sameColumns =
    stored !== undefined &&
    Object.entries(record.columns).every(([key, value]) => {
      const old = (stored as Record<string, unknown>)[key];
      return typeof value === 'boolean' ? Boolean(old) === value : (old ?? null) === value;
    });
  if (stored && sameColumns && sameConditions) return 'unchanged';
  if (stored && !sameColumns)
    await trx
      .updateTable('discount_code')
      .set({ ...record.columns, updated_at: now })
      .where('id', '=', id)
      .execute();
  if (!sameConditions) {
    await trx.deleteFrom('discount_code_condition').where('discount_code_id', '=', id).execute();
    if (record.conditions.length > 0) {
      await trx
        .insertInto('discount_code_condition')
        .values(record.conditions.map((condition) => ({ ...condition, discount_code_id: id })))
        .execute();
    }
  }
  return stored ? 'updated' : 'created';
}

export const discountCodesKind = lineKind(
  'import discount-codes <file.ndjson> discount codes (vouchers) and their conditions',
  ({ db, clock, log }) => ({
    parse: lineParser(DiscountCodeLine, convert),
    apply: (record: CodeRecord) => inLineTransaction(db, log, (trx) => upsertCode(trx, record, clock.now())),
  }),
);
