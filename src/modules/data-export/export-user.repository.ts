import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { ExportUserTable } from './data-export.tables.js';
import type { Selectable } from 'kysely';

export type ExportUserRow = Selectable<ExportUserTable>;

export function findExportUser(db: Kysely<Database>, name: string): Promise<ExportUserRow | undefined> {
  return db.selectFrom('export_user').selectAll().where('name', '=', name).executeTakeFirst();
}

export function listExportUsers(db: Kysely<Database>): Promise<ExportUserRow[]> {
  return db.selectFrom('export_user').selectAll().orderBy('name').execute();
}

export async function insertExportUser(
  db: Kysely<Database>,
  user: { name: string; passwordHash: string; allowedCidrs: string[] },
  now: number,
): Promise<void> {
  await db
    .insertInto('export_user')
    .values({
      name: user.name,
      password_hash: user.passwordHash,
      allowed_cidrs: JSON.stringify(user.allowedCidrs),
      disabled_at: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
}

/** Applies `changes` to the named user; false when there is no such user. */
export async function updateExportUser(
  db: Kysely<Database>,
  name: string,
  changes: { password_hash?: string; allowed_cidrs?: string; disabled_at?: number | null },
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('export_user')
    .set({ ...changes, updated_at: now })
    .where('name', '=', name)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function deleteExportUser(db: Kysely<Database>, name: string): Promise<boolean> {
  const result = await db.deleteFrom('export_user').where('name', '=', name).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
