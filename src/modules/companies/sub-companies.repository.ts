import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import { lockRowsOnPostgres } from '../../db/row-lock.js';
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

/**
 * Serialises the sub-company writes of one company on PostgreSQL (NO KEY UPDATE: the rows that
 * reference the company take a key share lock when inserted, which this does not wait for), so of
 * two identical forms at once the second finds the first's sub-company. SQLite's write
 * transactions are serial already.
 */
export async function lockCompany(trx: Db, companyId: number): Promise<void> {
  await lockRowsOnPostgres(trx, trx.selectFrom('company').select('id').where('id', '=', companyId), 'no key update');
}

/** The company's sub-companies with this name and registry code made after `after`, newest first. */
export function recentSubCompaniesNamed(
  db: Db,
  companyId: number,
  named: { name: string; registry_code: string | null },
  after: number,
): Promise<SubCompanyRow[]> {
  return db
    .selectFrom('sub_company')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('name', '=', named.name)
    .where((eb) => (named.registry_code === null ? eb('registry_code', 'is', null) : eb('registry_code', '=', named.registry_code)))
    .where('created_at', '>', after)
    .orderBy('id', 'desc')
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
