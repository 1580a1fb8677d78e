import type { Db } from '../../../db/database.js';
import type { CustomerKind } from '../../pricing/index.js';
import type { DiscountCode } from './discount-code.rules.js';

const splitList = (value: string) => value.split(',').filter((part) => part !== '');

async function toCode(db: Db, row: Awaited<ReturnType<typeof selectCode>>): Promise<DiscountCode | undefined> {
  if (!row) return undefined;
  const conditions = await db
    .selectFrom('discount_code_condition')
    .select(['mode', 'kind', 'value'])
    .where('discount_code_id', '=', row.id)
    .execute();
  return {
    id: Number(row.id),
    code: row.code,
    percent: row.percent,
    amountCents: row.amount_cents,
    validFrom: row.valid_from,
    validTo: row.valid_to,
    maxUses: row.max_uses,
    usedCount: row.used_count,
    minBasketCents: row.min_basket_cents,
    customerKinds: splitList(row.customer_kinds) as CustomerKind[],
    stores: splitList(row.stores),
    freeParcelMachine: Boolean(row.free_parcel_machine),
    isActive: Boolean(row.is_active),
    conditions,
  };
}

function selectCode(db: Db, where: { id: number } | { code: string }) {
  const query = db.selectFrom('discount_code').selectAll();
  return ('id' in where ? query.where('id', '=', where.id) : query.where('code', '=', where.code)).executeTakeFirst();
}

/** The code as typed, compared case-insensitively (codes are stored upper-case). */
export async function findDiscountCode(db: Db, typed: string): Promise<DiscountCode | undefined> {
  return toCode(db, await selectCode(db, { code: typed.trim().toUpperCase() }));
}

export async function discountCodeById(db: Db, id: number): Promise<DiscountCode | undefined> {
  return toCode(db, await selectCode(db, { id }));
}
