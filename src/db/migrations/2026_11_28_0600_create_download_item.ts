import { PostgresAdapter, sql, type Kysely } from 'kysely';

// GET /download lists a client's files in a store: one item per purchase (order_entitlement, with
// its order's store) or subscription take and per file (format) of its product, newest first (then
// the order, then the take, then the file). It built that list whole for every page: both sources
// joined to product_file, united, sorted, then cut, and counted whole. No index can give that order
// over the two sources: a purchase's rows interleave the files of an order's several products by
// file id, and a purchase's store is its order's. download_item keeps one row per listed item, its
// index in the list's order, so a page is a range of download_item_list_idx and the total a count
// over the same range. Whether a take's subscription gives access depends on the time (a cancelled
// one until its period ends), so that is checked as the list is read (subscriptions'
// subscriptionGivingAccess, by primary key); the row stays while the take is held.
//
// Triggers keep it in the writer's transaction, whoever writes: a purchase granted or revoked
// (order_entitlement), a take made, given back or erased (subscription_take), a product's file added
// or removed (product_file: every holder of the product gets an item), an order's store changed.
// order_id is 0 for a take and take_id 0 for a purchase, as the list's order reads them.

/** pg_advisory_xact_lock's first key for a product's download items (any constant no other lock uses). */
const LOCK_SPACE = 2_811_280;

const COLUMNS = 'order_id, take_id, file_id, product_id, client_account_id, store_code, granted_at, subscription_id';

/** The items of a purchase (`ref` is `new` in a trigger); one without an account is never listed. */
const purchaseItems = (ref: string) => `insert into download_item (${COLUMNS})
  select ${ref}.order_id, 0, f.id, ${ref}.product_id, ${ref}.client_account_id, o.store_code, ${ref}.created_at, null
  from customer_order o join product_file f on f.product_id = ${ref}.product_id
  where o.id = ${ref}.order_id and ${ref}.client_account_id is not null;`;
const dropPurchase = (ref: string) =>
  `delete from download_item where order_id = ${ref}.order_id and take_id = 0 and product_id = ${ref}.product_id;`;

/** The items of a take while it is held. */
const takeItems = (ref: string) => `insert into download_item (${COLUMNS})
  select 0, ${ref}.id, f.id, ${ref}.product_id, ${ref}.client_account_id, ${ref}.store_code, ${ref}.created_at, ${ref}.subscription_id
  from product_file f where f.product_id = ${ref}.product_id and ${ref}.held_key is not null;`;
const dropTake = (ref: string) => `delete from download_item where order_id = 0 and take_id = ${ref}.id;`;

/** A new file's items: one per purchase and held take of its product. */
const fileItems = (ref: string) => `insert into download_item (${COLUMNS})
  select e.order_id, 0, ${ref}.id, e.product_id, e.client_account_id, o.store_code, e.created_at, null
  from order_entitlement e join customer_order o on o.id = e.order_id
  where e.product_id = ${ref}.product_id and e.client_account_id is not null;
  insert into download_item (${COLUMNS})
  select 0, t.id, ${ref}.id, t.product_id, t.client_account_id, t.store_code, t.created_at, t.subscription_id
  from subscription_take t where t.product_id = ${ref}.product_id and t.held_key is not null;`;
const dropFile = (ref: string) => `delete from download_item where file_id = ${ref}.id;`;

const orderStore = 'update download_item set store_code = new.store_code where order_id = new.id and take_id = 0;';

const TAKE_COLUMNS = ['id', 'subscription_id', 'client_account_id', 'store_code', 'product_id', 'held_key', 'created_at'];

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  // A running release may write meanwhile: a file, purchase or take committed after the build read it and before the
  // triggers were there would be on no one's list until written again. Writers wait until the migration's transaction
  // (Kysely's Migrator runs them in one) commits; readers do not (share mode).
  if (postgres) await sql`lock table order_entitlement, customer_order, product_file, subscription_take in share mode`.execute(db);
  await db.schema
    .createTable('download_item')
    .addColumn('order_id', 'bigint', (c) => c.notNull())
    .addColumn('take_id', 'bigint', (c) => c.notNull())
    .addColumn('file_id', 'bigint', (c) => c.notNull())
    .addColumn('product_id', 'bigint', (c) => c.notNull())
    .addColumn('client_account_id', 'bigint', (c) => c.notNull())
    .addColumn('store_code', 'varchar(10)', (c) => c.notNull())
    .addColumn('granted_at', 'bigint', (c) => c.notNull())
    .addColumn('subscription_id', 'bigint')
    .addPrimaryKeyConstraint('download_item_pk', ['order_id', 'take_id', 'file_id'])
    .execute();
  // The list's order, with what the list reads of an item: a page and the count read the index alone.
  await db.schema
    .createIndex('download_item_list_idx')
    .on('download_item')
    .columns([
      'client_account_id',
      'store_code',
      'granted_at desc',
      'order_id desc',
      'take_id desc',
      'file_id',
      'subscription_id',
      'product_id',
    ])
    .execute();
  await db.schema.createIndex('download_item_file_idx').on('download_item').column('file_id').execute();
  // A new file finds its product's purchases and held takes.
  await db.schema.createIndex('order_entitlement_product_idx').on('order_entitlement').column('product_id').execute();
  await db.schema
    .createIndex('subscription_take_product_idx')
    .on('subscription_take')
    .column('product_id')
    .where(sql.raw<boolean>('held_key is not null'))
    .execute();

  await sql
    .raw(
      `insert into download_item (${COLUMNS})
       select e.order_id, 0, f.id, e.product_id, e.client_account_id, o.store_code, e.created_at, null
       from order_entitlement e join customer_order o on o.id = e.order_id join product_file f on f.product_id = e.product_id
       where e.client_account_id is not null`,
    )
    .execute(db);
  await sql
    .raw(
      `insert into download_item (${COLUMNS})
       select 0, t.id, f.id, t.product_id, t.client_account_id, t.store_code, t.created_at, t.subscription_id
       from subscription_take t join product_file f on f.product_id = t.product_id
       where t.held_key is not null`,
    )
    .execute(db);

  if (postgres) await postgresTriggers(db);
  else await sqliteTriggers(db);
}

async function sqliteTriggers(db: Kysely<any>): Promise<void> {
  // SQLite runs one write transaction at a time: a trigger's reads see every committed writer.
  const triggers: Array<[string, string]> = [
    ['download_item_purchase_insert', `after insert on order_entitlement begin ${purchaseItems('new')} end`],
    ['download_item_purchase_update', `after update on order_entitlement begin ${dropPurchase('old')} ${purchaseItems('new')} end`],
    ['download_item_purchase_delete', `after delete on order_entitlement begin ${dropPurchase('old')} end`],
    ['download_item_take_insert', `after insert on subscription_take begin ${takeItems('new')} end`],
    [
      'download_item_take_update',
      `after update of ${TAKE_COLUMNS.join(', ')} on subscription_take begin ${dropTake('old')} ${takeItems('new')} end`,
    ],
    ['download_item_take_delete', `after delete on subscription_take begin ${dropTake('old')} end`],
    ['download_item_file_insert', `after insert on product_file begin ${fileItems('new')} end`],
    ['download_item_file_update', `after update of id, product_id on product_file begin ${dropFile('old')} ${fileItems('new')} end`],
    ['download_item_file_delete', `after delete on product_file begin ${dropFile('old')} end`],
    [
      'download_item_order_store',
      `after update of store_code on customer_order when new.store_code is not old.store_code begin ${orderStore} end`,
    ],
  ];
  for (const [name, body] of triggers) await sql.raw(`create trigger ${name} ${body}`).execute(db);
}

async function postgresTriggers(db: Kysely<any>): Promise<void> {
  // Under READ COMMITTED a purchase (or take) and a new file of its product written at once would
  // each read a snapshot without the other's row, and neither would add their item. A per-product
  // transaction lock, shared by purchases and takes and exclusive for a file, makes the later one
  // wait for the other's commit; its next statement then reads the other's row. Grants of one
  // product never wait for each other. Ids beyond int4 share a lock with another id: only more waiting.
  const lock = (kind: 'shared' | 'exclusive', id: string) =>
    `perform pg_advisory_xact_lock${kind === 'shared' ? '_shared' : ''}(${LOCK_SPACE}, (${id} % 2147483647)::int);`;
  const fn = (name: string, body: string) =>
    sql.raw(`create function ${name}() returns trigger language plpgsql as $$ begin ${body} return null; end $$`).execute(db);
  await fn(
    'download_item_purchase_changed',
    `if tg_op <> 'INSERT' then ${dropPurchase('old')} end if;
     if tg_op <> 'DELETE' then ${lock('shared', 'new.product_id')} ${purchaseItems('new')} end if;`,
  );
  await fn(
    'download_item_take_changed',
    `if tg_op <> 'INSERT' then ${dropTake('old')} end if;
     if tg_op <> 'DELETE' then ${lock('shared', 'new.product_id')} ${takeItems('new')} end if;`,
  );
  await fn(
    'download_item_file_changed',
    `if tg_op <> 'INSERT' then ${dropFile('old')} end if;
     if tg_op <> 'DELETE' then ${lock('exclusive', 'new.product_id')} ${fileItems('new')} end if;`,
  );
  await fn('download_item_order_store', orderStore);
  await sql`create trigger download_item_purchase_changed after insert or update or delete on order_entitlement
    for each row execute function download_item_purchase_changed()`.execute(db);
  await sql
    .raw(
      `create trigger download_item_take_changed after insert or update of ${TAKE_COLUMNS.join(', ')} or delete on subscription_take
       for each row execute function download_item_take_changed()`,
    )
    .execute(db);
  await sql`create trigger download_item_file_changed after insert or update of id, product_id or delete on product_file
    for each row execute function download_item_file_changed()`.execute(db);
  await sql`create trigger download_item_order_store after update of store_code on customer_order
    for each row when (old.store_code is distinct from new.store_code) execute function download_item_order_store()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    const triggers: Array<[string, string]> = [
      ['download_item_purchase_changed', 'order_entitlement'],
      ['download_item_take_changed', 'subscription_take'],
      ['download_item_file_changed', 'product_file'],
      ['download_item_order_store', 'customer_order'],
    ];
    for (const [name, table] of triggers) {
      await sql.raw(`drop trigger if exists ${name} on ${table}`).execute(db);
      await sql.raw(`drop function if exists ${name}()`).execute(db);
    }
  } else {
    for (const name of [
      'purchase_insert',
      'purchase_update',
      'purchase_delete',
      'take_insert',
      'take_update',
      'take_delete',
      'file_insert',
      'file_update',
      'file_delete',
      'order_store',
    ])
      await sql.raw(`drop trigger if exists download_item_${name}`).execute(db);
  }
  await db.schema.dropIndex('subscription_take_product_idx').execute();
  await db.schema.dropIndex('order_entitlement_product_idx').execute();
  await db.schema.dropTable('download_item').execute();
}
