import type { Kysely } from 'kysely';
import { idColumn, idType } from '../migration-helpers.js';

// Users of the data-export API (the analytics partner): HTTP Basic with a generated password of
// which only the argon2id hash is kept, optionally limited to an allowlist of networks.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('export_user')
    .addColumn('id', idType(db), idColumn(db))
    .addColumn('name', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('password_hash', 'varchar(200)', (c) => c.notNull())
    // JSON array of CIDR blocks (IPv4 or IPv6); empty: any address.
    .addColumn('allowed_cidrs', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('disabled_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('export_user').execute();
}
