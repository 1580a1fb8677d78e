import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { PageRequest } from '../../http/paging.js';
import type { SubCompanyAddressTable, SubCompanyTable } from './companies.tables.js';

// The SQL of sub-companies: always within one company.

export type SubCompanyRow = Selectable<SubCompanyTable>;
export type SubCompanyAddressRow = Selectable<SubCompanyAddressTable>;
export type NewAddress = Omit<SubCompanyAddressRow, 'id' | 'sub_company_id' | 'position'>;

export async function subCompanyPage(db: Db, companyId: number, page: PageRequest) {
  const rows = await db
    .selectFrom('sub_company')
    .selectAll()
    .where('company_id', '=', companyId)
    .orderBy('id')
    .limit(page.perPage)
    .offset(page.offset)
    .execute();
  const { total } = await db
    .selectFrom('sub_company')
    .select((eb) => eb.fn.countAll<number | string>().as('total'))
    .where('company_id', '=', companyId)
    .executeTakeFirstOrThrow();
  return { rows, total: Number(total) };
}

/** The sub-company with that id in the company; undefined for another company's. */
export function findSubCompany(db: Db, companyId: number, id: number): Promise<SubCompanyRow | undefined> {
  return db.selectFrom('sub_company').selectAll().where('company_id', '=', companyId).where('id', '=', id).executeTakeFirst();
}

/** The addresses of these sub-companies, in their order. */
export function addressesOf(db: Db, subCompanyIds: number[]): Promise<SubCompanyAddressRow[]> {
  if (subCompanyIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('sub_company_address')
    .selectAll()
    .where('sub_company_id', 'in', subCompanyIds)
    .orderBy('sub_company_id')
    .orderBy('position')
    .execute();
}

export async function insertSubCompany(
  db: Db,
  values: { company_id: number; name: string; registry_code: string | null },
  now: number,
): Promise<number> {
  const row = await db
    .insertInto('sub_company')
    .values({ ...values, created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function updateSubCompany(
  db: Db,
  id: number,
  changes: { name?: string; registry_code?: string | null },
  now: number,
): Promise<void> {
  await db
    .updateTable('sub_company')
    .set({ ...changes, updated_at: now })
    .where('id', '=', id)
    .execute();
}

export async function replaceAddresses(db: Db, subCompanyId: number, addresses: NewAddress[]): Promise<void> {
  await db.deleteFrom('sub_company_address').where('sub_company_id', '=', subCompanyId).execute();
  if (addresses.length === 0) return;
  await db
    .insertInto('sub_company_address')
    .values(addresses.map((address, position) => ({ ...address, sub_company_id: subCompanyId, position })))
    .execute();
}

/** Deletes a sub-company of the company (its addresses go with it); false when it is not the company's. */
export async function deleteSubCompany(db: Db, companyId: number, id: number): Promise<boolean> {
  await db
    .deleteFrom('sub_company_address')
    .where('sub_company_id', 'in', (eb) =>
      eb.selectFrom('sub_company').select('id').where('company_id', '=', companyId).where('id', '=', id),
    )
    .execute();
  const result = await db.deleteFrom('sub_company').where('company_id', '=', companyId).where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
