import type { Db } from '../../db/database.js';
import { InvalidInputError, notFound, type InvalidField } from '../../infra/domain-error.js';
import { RESUBMIT_WINDOW_MS } from '../../infra/resubmit.js';
import type { PageRequest } from '../../http/paging.js';
import { knownCountries } from '../country/index.js';
import type { SubCompany, SubCompanyAddress, SubCompanyChange, SubCompanyForm } from './companies.schemas.js';
import type { CompanyMaster } from './company-access.js';
import {
  addressesOf,
  deleteSubCompany,
  findSubCompany,
  insertSubCompany,
  lockCompany,
  recentSubCompaniesNamed,
  replaceAddresses,
  subCompanyPage,
  updateSubCompany,
  type NewAddress,
  type SubCompanyAddressRow,
  type SubCompanyRow,
} from './sub-companies.repository.js';

// A wholesale company's sub-companies. Every id is looked up within the master's company, so
// another company's id is the same 404 as one that does not exist.

const subCompanyNotFound = () => notFound('companies.subCompanyNotFound');
const iso = (ms: number) => new Date(Number(ms)).toISOString();

function toSubCompany(row: SubCompanyRow, addresses: SubCompanyAddressRow[]): SubCompany {
  return {
    id: Number(row.id),
    name: row.name,
    registryCode: row.registry_code,
    addresses: addresses.map((address) => ({
      id: Number(address.id),
      recipient: address.recipient,
      street: address.street,
      city: address.city,
      postcode: address.postcode,
      countryCode: address.country_code,
      phone: address.phone,
    })),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

function addressValues(addresses: SubCompanyAddress[]): NewAddress[] {
  return addresses.map((address) => ({
    recipient: address.recipient ?? null,
    street: address.street,
    city: address.city,
    postcode: address.postcode,
    country_code: address.countryCode,
    phone: address.phone ?? null,
  }));
}

/**
 * A 422 naming every address whose country is not on the country list, as a client's address is
 * refused (the pattern alone took any two letters: a typo was saved as a country nobody delivers to).
 */
async function refuseUnknownCountries(db: Db, addresses: SubCompanyAddress[] = []): Promise<void> {
  const known = await knownCountries(
    db,
    addresses.map((address) => address.countryCode),
  );
  const errors = addresses.flatMap((address, index): InvalidField[] =>
    known.has(address.countryCode) ? [] : [{ field: `addresses.${index}.countryCode`, messageKey: 'companies.unknownCountry' }],
  );
  if (errors.length > 0) throw new InvalidInputError(errors);
}

async function withAddresses(db: Db, rows: SubCompanyRow[]): Promise<SubCompany[]> {
  const addresses = await addressesOf(
    db,
    rows.map((row) => Number(row.id)),
  );
  return rows.map((row) =>
    toSubCompany(
      row,
      addresses.filter((address) => Number(address.sub_company_id) === Number(row.id)),
    ),
  );
}

async function readSubCompany(db: Db, master: CompanyMaster, id: number): Promise<SubCompany> {
  const row = await findSubCompany(db, master.companyId, id);
  if (!row) throw subCompanyNotFound();
  return (await withAddresses(db, [row]))[0]!;
}

export async function listSubCompanies(db: Db, master: CompanyMaster, page: PageRequest) {
  const { rows, total } = await subCompanyPage(db, master.companyId, page);
  return { items: await withAddresses(db, rows), total };
}

/**
 * Adds a sub-company. The same form again within the resubmit window (a double click, a retry
 * after a timeout) answers the sub-company the first one made, as it is, and adds nothing: under
 * the company's lock, two at once make one.
 */
export async function createSubCompany(trx: Db, master: CompanyMaster, form: SubCompanyForm, now: number): Promise<SubCompany> {
  await refuseUnknownCountries(trx, form.addresses);
  await lockCompany(trx, master.companyId);
  const named = { name: form.name, registry_code: form.registryCode ?? null };
  const addresses = addressValues(form.addresses ?? []);
  const recent = await withAddresses(trx, await recentSubCompaniesNamed(trx, master.companyId, named, now - RESUBMIT_WINDOW_MS));
  const same = recent.find((made) => sameAddresses(made.addresses, addresses));
  if (same) return same;
  const id = await insertSubCompany(trx, { company_id: master.companyId, ...named }, now);
  await replaceAddresses(trx, id, addresses);
  return readSubCompany(trx, master, id);
}

function sameAddresses(made: SubCompany['addresses'], asked: NewAddress[]): boolean {
  const values = (
    address: { recipient: string | null; street: string; city: string; postcode: string; phone: string | null },
    country: string,
  ) => JSON.stringify([address.recipient, address.street, address.city, address.postcode, country, address.phone]);
  return (
    made.length === asked.length &&
    made.every((address, i) => values(address, address.countryCode) === values(asked[i]!, asked[i]!.country_code))
  );
}

export async function changeSubCompany(trx: Db, master: CompanyMaster, id: number, change: SubCompanyChange, now: number) {
  if (!(await findSubCompany(trx, master.companyId, id))) throw subCompanyNotFound();
  await refuseUnknownCountries(trx, change.addresses);
  await updateSubCompany(trx, id, { name: change.name, registry_code: change.registryCode }, now);
  if (change.addresses !== undefined) await replaceAddresses(trx, id, addressValues(change.addresses));
  return readSubCompany(trx, master, id);
}

export async function removeSubCompany(trx: Db, master: CompanyMaster, id: number): Promise<void> {
  if (!(await deleteSubCompany(trx, master.companyId, id))) throw subCompanyNotFound();
}
