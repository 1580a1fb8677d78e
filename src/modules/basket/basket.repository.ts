import { sql, type Selectable, type Updateable } from 'kysely';
import { deleteInBatches } from '../../db/batched-delete.js';
import type { DatabaseHandle, Db } from '../../db/database.js';
import { preparedQuery } from '../../db/prepared.js';
import { lockedOnPostgres } from '../../db/row-lock.js';
import type { BasketLineTable, BasketTable } from './basket.tables.js';

// All of the basket's own SQL. Every write to a basket first locks its row (the reads' `lock`), so
// concurrent writes to one basket run one after the other and never lose an update.

export type BasketRow = Selectable<BasketTable>;
export type BasketLineRow = Selectable<BasketLineTable>;

export const normaliseBasket = (row: BasketRow): BasketRow => ({
  ...row,
  id: Number(row.id),
  client_account_id: row.client_account_id === null ? null : Number(row.client_account_id),
  discount_code_id: row.discount_code_id === null ? null : Number(row.discount_code_id),
  delivery_method_id: row.delivery_method_id === null ? null : Number(row.delivery_method_id),
  parcel_machine_id: row.parcel_machine_id === null ? null : Number(row.parcel_machine_id),
  delivery_shop_id: row.delivery_shop_id === null ? null : Number(row.delivery_shop_id),
});

/** A guest's basket by its token's hash, in the store, unless it has outlived `changedSince`. */
export async function findGuestBasket(db: Db, tokenHash: string, storeCode: string, changedSince: number, lock: boolean) {
  let query = db
    .selectFrom('basket')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('store_code', '=', storeCode)
    .where('updated_at', '>=', changedSince);
  if (lock) query = lockedOnPostgres(db, query);
  const row = await query.executeTakeFirst();
  return row && normaliseBasket(row);
}

export async function findClientBasket(db: Db, clientAccountId: number, storeCode: string, lock: boolean) {
  let query = db.selectFrom('basket').selectAll().where('client_account_id', '=', clientAccountId).where('store_code', '=', storeCode);
  if (lock) query = lockedOnPostgres(db, query);
  const row = await query.executeTakeFirst();
  return row && normaliseBasket(row);
}

/** The client's basket in the store, created when missing (two at once make one), locked. */
export async function ensureClientBasket(db: Db, clientAccountId: number, storeCode: string, now: number): Promise<BasketRow> {
  await db
    .insertInto('basket')
    .values({ store_code: storeCode, client_account_id: clientAccountId, token_hash: null, version: 1, created_at: now, updated_at: now })
    .onConflict((conflict) => conflict.columns(['client_account_id', 'store_code']).doNothing())
    .execute();
  return (await findClientBasket(db, clientAccountId, storeCode, true))!;
}

export async function createGuestBasket(db: Db, tokenHash: string, storeCode: string, now: number): Promise<BasketRow> {
  const row = await db
    .insertInto('basket')
    .values({ store_code: storeCode, client_account_id: null, token_hash: tokenHash, version: 1, created_at: now, updated_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
  return normaliseBasket(row);
}

export async function deleteBasket(db: Db, id: number): Promise<void> {
  await db.deleteFrom('basket').where('id', '=', id).execute();
}

export async function basketLines(db: Db, basketId: number): Promise<BasketLineRow[]> {
  const rows = await db
    .selectFrom('basket_line')
    .selectAll()
    .where('basket_id', '=', basketId)
    .orderBy('added_at')
    .orderBy('product_id')
    .execute();
  return rows.map((row) => ({ ...row, basket_id: Number(row.basket_id), product_id: Number(row.product_id) }));
}

export async function insertLine(db: Db, line: BasketLineRow): Promise<void> {
  await db.insertInto('basket_line').values(line).execute();
}

export async function updateLine(db: Db, basketId: number, productId: number, quantity: number, seenPriceCents: number): Promise<void> {
  await db
    .updateTable('basket_line')
    .set({ quantity, seen_price_cents: seenPriceCents })
    .where('basket_id', '=', basketId)
    .where('product_id', '=', productId)
    .execute();
}

export async function deleteLine(db: Db, basketId: number, productId: number): Promise<void> {
  await db.deleteFrom('basket_line').where('basket_id', '=', basketId).where('product_id', '=', productId).execute();
}

export async function deleteAllLines(db: Db, basketId: number): Promise<void> {
  await db.deleteFrom('basket_line').where('basket_id', '=', basketId).execute();
}

/** Records a write: the next version, the time of the change, and whatever else changed. */
export async function touchBasket(db: Db, basket: BasketRow, now: number, changes: Updateable<BasketTable> = {}): Promise<BasketRow> {
  const next = { ...changes, version: basket.version + 1, updated_at: now };
  await db.updateTable('basket').set(next).where('id', '=', basket.id).execute();
  return { ...basket, ...next } as BasketRow;
}

/**
 * Empty baskets unchanged for `emptyMs` and guest baskets unchanged for `guestMs` are deleted
 * (lines go with them). Returns how many baskets were.
 */
export async function pruneBaskets(db: Db, now: number, emptyMs: number, guestMs: number): Promise<number> {
  const empty = await deleteInBatches(db, 'basket', {
    key: 'id',
    where: ({ and, eb, not, exists, selectFrom }) =>
      and([
        eb('updated_at', '<', now - emptyMs),
        not(exists(selectFrom('basket_line').select(sql.lit(1).as('one')).whereRef('basket_line.basket_id', '=', 'basket.id'))),
      ]),
    orderBy: 'updated_at',
  });
  const guests = await deleteInBatches(db, 'basket', {
    key: 'id',
    where: (eb) => eb.and([eb('client_account_id', 'is', null), eb('updated_at', '<', now - guestMs)]),
    orderBy: 'updated_at',
  });
  return empty + guests;
}

/** The two basket look-ups of the read path, compiled once (outside transactions only). */
export function preparedBasketFinders(handle: DatabaseHandle) {
  const guest = preparedQuery(handle, (db, tokenHash: string, storeCode: string, changedSince: number) =>
    db
      .selectFrom('basket')
      .selectAll()
      .where('token_hash', '=', tokenHash)
      .where('store_code', '=', storeCode)
      .where('updated_at', '>=', changedSince),
  );
  const client = preparedQuery(handle, (db, clientAccountId: number, storeCode: string) =>
    db.selectFrom('basket').selectAll().where('client_account_id', '=', clientAccountId).where('store_code', '=', storeCode),
  );
  const first = (rows: BasketRow[]) => (rows[0] ? normaliseBasket(rows[0]) : undefined);
  return {
    guest: async (tokenHash: string, storeCode: string, changedSince: number) => first(await guest(tokenHash, storeCode, changedSince)),
    client: async (clientAccountId: number, storeCode: string) => first(await client(clientAccountId, storeCode)),
  };
}

/**
 * The write path's statements on the basket, compiled once; each runs on an open transaction
 * (`.on(trx)`). Opening a basket for a write moves its version on in the same statement that finds
 * and locks it (an UPDATE takes the row lock on PostgreSQL; SQLite writes one transaction at a
 * time), so a write needs no second statement for its version: a write that fails rolls it back.
 * A basket made by the write starts at version 2, as if made at 1 and then written.
 */
export function preparedBasketWrites(handle: DatabaseHandle) {
  const bumpGuest = preparedQuery(handle, (db, tokenHash: string, storeCode: string, changedSince: number, now: number) =>
    db
      .updateTable('basket')
      .set((eb) => ({ version: eb('version', '+', 1), updated_at: now }))
      .where('token_hash', '=', tokenHash)
      .where('store_code', '=', storeCode)
      .where('updated_at', '>=', changedSince)
      .returningAll(),
  );
  const createGuest = preparedQuery(handle, (db, tokenHash: string, storeCode: string, now: number) =>
    db
      .insertInto('basket')
      .values({ store_code: storeCode, client_account_id: null, token_hash: tokenHash, version: 2, created_at: now, updated_at: now })
      .returningAll(),
  );
  // Two first writes of one client at once make one basket: the second finds the first's row.
  const bumpClient = preparedQuery(handle, (db, clientAccountId: number, storeCode: string, now: number) =>
    db
      .insertInto('basket')
      .values({ store_code: storeCode, client_account_id: clientAccountId, token_hash: null, version: 2, created_at: now, updated_at: now })
      .onConflict((conflict) =>
        conflict
          .columns(['client_account_id', 'store_code'])
          .doUpdateSet((eb) => ({ version: eb('basket.version', '+', 1), updated_at: eb.ref('excluded.updated_at') })),
      )
      .returningAll(),
  );
  // The write of a line whose quantity the caller worked out under the basket's lock.
  const upsertLine = preparedQuery(
    handle,
    (db, basketId: number, productId: number, quantity: number, seenPriceCents: number, addedAt: number) =>
      db
        .insertInto('basket_line')
        .values({ basket_id: basketId, product_id: productId, quantity, seen_price_cents: seenPriceCents, added_at: addedAt })
        .onConflict((conflict) =>
          conflict.columns(['basket_id', 'product_id']).doUpdateSet((eb) => ({
            quantity: eb.ref('excluded.quantity'),
            seen_price_cents: eb.ref('excluded.seen_price_cents'),
          })),
        ),
  );
  const first = (rows: BasketRow[]) => (rows[0] ? normaliseBasket(rows[0]) : undefined);
  return {
    /** A guest's basket by its token's hash, locked and its version moved on; undefined when none is alive. */
    bumpGuest: async (db: Db, tokenHash: string, storeCode: string, changedSince: number, now: number) =>
      first(await bumpGuest.on(db, tokenHash, storeCode, changedSince, now)),
    createGuest: async (db: Db, tokenHash: string, storeCode: string, now: number) =>
      first(await createGuest.on(db, tokenHash, storeCode, now))!,
    /** The client's basket in the store, created when missing, locked and its version moved on. */
    bumpClient: async (db: Db, clientAccountId: number, storeCode: string, now: number) =>
      first(await bumpClient.on(db, clientAccountId, storeCode, now))!,
    /** Sets a line (made when missing; an existing line keeps the time it was added). */
    upsertLine: async (db: Db, line: BasketLineRow) => {
      await upsertLine.on(db, line.basket_id, line.product_id, line.quantity, line.seen_price_cents, line.added_at);
    },
  };
}

export type BasketWrites = ReturnType<typeof preparedBasketWrites>;
