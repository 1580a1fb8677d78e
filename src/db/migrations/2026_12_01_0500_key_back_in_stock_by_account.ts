import { sql, type Kysely } from 'kysely';

// A back-in-stock request belongs to the account that made it. One request per store, product and
// email let a person with a retail and a business account (one login email) share one row: the
// second account's request took the first's over (moved it to its own list, kept the first's
// audience), and the first's list and DELETE lost it. A client's request is now one per store,
// product and client account; a guest's stays one per store, product and email. The rows there are
// unique by email already, so they satisfy both keys.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('back_in_stock_request_uq').execute();
  await db.schema
    .createIndex('back_in_stock_request_guest_uq')
    .unique()
    .on('back_in_stock_request')
    .columns(['store_code', 'product_id', 'email'])
    .where(sql.raw<boolean>('client_account_id is null'))
    .execute();
  await db.schema
    .createIndex('back_in_stock_request_client_uq')
    .unique()
    .on('back_in_stock_request')
    .columns(['store_code', 'product_id', 'client_account_id'])
    .where(sql.raw<boolean>('client_account_id is not null'))
    .execute();
}

/** One request per store, product and email again: of an address's several, the oldest stays. */
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('back_in_stock_request_client_uq').execute();
  await db.schema.dropIndex('back_in_stock_request_guest_uq').execute();
  await sql`
    delete from back_in_stock_request
    where exists (
      select 1 from back_in_stock_request older
      where older.store_code = back_in_stock_request.store_code
        and older.product_id = back_in_stock_request.product_id
        and older.email = back_in_stock_request.email
        and older.id < back_in_stock_request.id
    )`.execute(db);
  await db.schema
    .createIndex('back_in_stock_request_uq')
    .unique()
    .on('back_in_stock_request')
    .columns(['store_code', 'product_id', 'email'])
    .execute();
}
