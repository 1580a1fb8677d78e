import type { Kysely } from 'kysely';
import { idColumn, idType } from '../migration-helpers.js';

// A wholesale company's sub-accounts (branches, schools it buys for), each with its own delivery
// addresses, managed by the company's master users (modules/companies). Company users need no table:
// they are the client accounts of the company (client_account.company_id and role).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sub_company')
    .addColumn('id', idType(db), idColumn(db))
    .addColumn('company_id', 'bigint', (c) => c.notNull().references('company.id').onDelete('cascade'))
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addColumn('registry_code', 'varchar(40)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sub_company_company_idx').on('sub_company').columns(['company_id', 'id']).execute();

  await db.schema
    .createTable('sub_company_address')
    .addColumn('id', idType(db), idColumn(db))
    .addColumn('sub_company_id', 'bigint', (c) => c.notNull().references('sub_company.id').onDelete('cascade'))
    // The order the master listed them in; the first is the default.
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('recipient', 'varchar(200)')
    .addColumn('street', 'varchar(200)', (c) => c.notNull())
    .addColumn('city', 'varchar(100)', (c) => c.notNull())
    .addColumn('postcode', 'varchar(20)', (c) => c.notNull())
    .addColumn('country_code', 'varchar(2)', (c) => c.notNull())
    .addColumn('phone', 'varchar(30)')
    .execute();
  await db.schema
    .createIndex('sub_company_address_sub_company_idx')
    .on('sub_company_address')
    .columns(['sub_company_id', 'position'])
    .execute();

  // The company-user list reads a company's accounts in a store.
  await db.schema.createIndex('client_account_company_idx').on('client_account').columns(['company_id', 'store_code', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('client_account_company_idx').execute();
  await db.schema.dropTable('sub_company_address').execute();
  await db.schema.dropTable('sub_company').execute();
}
