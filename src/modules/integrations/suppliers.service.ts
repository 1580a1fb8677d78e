import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/database.js';
import {
  allSuppliers,
  countSupplierProducts,
  deleteSupplier,
  findSupplierByCode,
  insertSupplier,
  lockSupplierAndProducts,
  updateSupplier,
  type SupplierRow,
} from './suppliers.repository.js';

// Suppliers as the operator manages them (`storefront supplier ...`). A supplier's secret is made
// here, shown once, and stored as it is: an HMAC is checked by computing it, so the secret must be
// at hand (a hash would not do). It is never printed again; `rotate` replaces it.

export const SUPPLIER_CODE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$/;

/** What the command names is not there, or is taken: the command line itself was right. */
export class SupplierError extends Error {}
/** A code or name that is never valid: a command line the CLI cannot run. */
export class SupplierInputError extends SupplierError {}

const newSecret = () => randomBytes(32).toString('base64url');

async function existing(db: Db, code: string): Promise<SupplierRow> {
  const supplier = await findSupplierByCode(db, code);
  if (!supplier) throw new SupplierError(`no supplier with code "${code}"`);
  return supplier;
}

/** A new supplier; its secret (shown once). */
export async function addSupplier(db: Db, code: string, name: string, now: number): Promise<string> {
  if (!SUPPLIER_CODE.test(code))
    throw new SupplierInputError('a supplier code is 1 to 40 letters, digits, _ or -, starting with a letter or digit');
  // One line: `supplier list` prints a supplier a line, its columns split by tabs.
  if (name.trim() === '' || name.length > 200 || /\p{Cc}/u.test(name))
    throw new SupplierInputError('a supplier name is one line of 1 to 200 characters');
  if (await findSupplierByCode(db, code)) throw new SupplierError(`a supplier with code "${code}" exists already`);
  const secret = newSecret();
  await insertSupplier(db, { code, name: name.trim(), secret }, now);
  return secret;
}

/** A new secret for the supplier; the old one stops working at once. */
export async function rotateSupplierSecret(db: Db, code: string, now: number): Promise<string> {
  const supplier = await existing(db, code);
  const secret = newSecret();
  await updateSupplier(db, supplier.id, { secret, secret_rotated_at: now });
  return secret;
}

/** The kill switch: a disabled supplier's requests are refused before their body is read. */
export async function setSupplierEnabled(db: Db, code: string, enabled: boolean, now: number): Promise<void> {
  const supplier = await existing(db, code);
  await updateSupplier(db, supplier.id, { disabled_at: enabled ? null : (supplier.disabled_at ?? now) });
}

/**
 * Removes the supplier, in the caller's transaction; how many active products it kept (they stay,
 * kept by the back office now). Its products are locked in id order first, as a checkout takes them.
 */
export async function removeSupplier(trx: Db, code: string): Promise<number> {
  const supplier = await existing(trx, code);
  await lockSupplierAndProducts(trx, supplier.id);
  const products = await countSupplierProducts(trx, supplier.id);
  await deleteSupplier(trx, supplier.id);
  return products;
}

export async function listSuppliers(db: Db): Promise<Array<SupplierRow & { activeProducts: number }>> {
  const suppliers = await allSuppliers(db);
  return Promise.all(suppliers.map(async (supplier) => ({ ...supplier, activeProducts: await countSupplierProducts(db, supplier.id) })));
}
