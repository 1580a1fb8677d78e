import type { Db } from '../../db/database.js';
import { lockLiveClientAccount } from '../client-account-lock/index.js';
import { knownCountries } from '../country/index.js';
import { invalidField, InvalidInputError, notFound } from '../../infra/domain-error.js';
import {
  addressesOf,
  clearDefault,
  countAddresses,
  deleteAddress,
  findAddress,
  findSameAddress,
  insertAddress,
  updateAddress,
  type AddressRow,
} from './profile.repository.js';
import type { AddressBody, AddressWire } from './profile.schemas.js';
import type { ProfileActor } from './profile.service.js';
import { RESUBMIT_WINDOW_MS } from '../../infra/resubmit.js';

// A client's saved shipping and billing addresses, with at most one default of each kind. Every
// write locks the client account first, so the count limit and the single default hold under
// concurrent requests, and a change never finds the address it read deleted when it writes; an
// id of another client's address is the same 404 as one that does not exist.

export const MAX_ADDRESSES = 20;

export function addressWire(row: AddressRow): AddressWire {
  return {
    id: Number(row.id),
    kind: row.kind,
    name: row.name,
    phone: row.phone,
    address: row.address,
    city: row.city,
    postcode: row.postcode,
    countryNavCode: row.country_code,
    isDefault: row.default_for !== null,
  };
}

export async function listAddresses(db: Db, clientAccountId: number): Promise<AddressWire[]> {
  return (await addressesOf(db, clientAccountId)).map(addressWire);
}

async function checkedValues(trx: Db, body: AddressBody, now: number) {
  const country = body.countryNavCode.toUpperCase();
  if (!(await knownCountries(trx, [country])).has(country)) throw invalidField('countryNavCode', 'profile.unknownCountry');
  const phone = body.phone.trim();
  const postcode = body.postcode.trim();
  // Their patterns take spaces (`+372 5555 5555`, `LV-1050`), so one of spaces alone passes them and
  // was saved as an empty phone or postcode: a required text of nothing but spaces is a 422, as a name's is.
  const blank = Object.entries({ phone, postcode }).filter(([, value]) => value === '');
  if (blank.length > 0) {
    throw new InvalidInputError(blank.map(([field]) => ({ field, messageKey: 'validation.required', params: { field } })));
  }
  return {
    kind: body.kind,
    name: body.name.trim(),
    phone,
    address: body.address.trim(),
    city: body.city.trim(),
    postcode,
    country_code: country,
    updated_at: now,
  };
}

/**
 * Saves a new address. The same form again within the resubmit window (a double click, a retry
 * after a timeout) answers the address the first one saved, as it is, and saves nothing: under the
 * client account's lock, two at once make one.
 */
export async function createAddress(trx: Db, actor: ProfileActor, body: AddressBody, now: number): Promise<AddressWire> {
  await lockLiveClientAccount(trx, actor.clientAccountId);
  const values = await checkedValues(trx, body, now);
  const same = await findSameAddress(trx, actor.clientAccountId, values, body.isDefault === true, now - RESUBMIT_WINDOW_MS);
  if (same) return addressWire(same);
  if ((await countAddresses(trx, actor.clientAccountId)) >= MAX_ADDRESSES) {
    throw invalidField('kind', 'profile.tooManyAddresses', { limit: MAX_ADDRESSES });
  }
  if (body.isDefault === true) await clearDefault(trx, actor.clientAccountId, body.kind);
  const id = await insertAddress(trx, {
    ...values,
    client_account_id: actor.clientAccountId,
    default_for: body.isDefault === true ? body.kind : null,
    created_at: now,
  });
  return addressWire((await findAddress(trx, actor.clientAccountId, id))!);
}

/**
 * Replaces an address. isDefault true makes it the default of its kind; false (or a change of
 * kind without isDefault) makes it no default; left out, it stays the default it was.
 */
export async function replaceAddress(trx: Db, actor: ProfileActor, id: number, body: AddressBody, now: number): Promise<AddressWire> {
  await lockLiveClientAccount(trx, actor.clientAccountId);
  const existing = await findAddress(trx, actor.clientAccountId, id);
  if (!existing) throw notFound('profile.addressNotFound');
  const values = await checkedValues(trx, body, now);
  const makeDefault = body.isDefault ?? (existing.default_for !== null && existing.kind === body.kind);
  if (makeDefault) {
    await updateAddress(trx, actor.clientAccountId, id, { default_for: null });
    await clearDefault(trx, actor.clientAccountId, body.kind);
  }
  await updateAddress(trx, actor.clientAccountId, id, { ...values, default_for: makeDefault ? body.kind : null });
  return addressWire((await findAddress(trx, actor.clientAccountId, id))!);
}

/** Under the client account's lock too: a change of the address in flight reads it, then writes it. */
export async function removeAddress(trx: Db, actor: ProfileActor, id: number): Promise<void> {
  await lockLiveClientAccount(trx, actor.clientAccountId);
  if (!(await deleteAddress(trx, actor.clientAccountId, id))) throw notFound('profile.addressNotFound');
}
