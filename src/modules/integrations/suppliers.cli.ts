import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { toRfc3339 } from '../../db/time.js';
import { CliUsageError, inputErrorsAsUsage } from '../../infra/cli-usage.js';
import type { Clock } from '../../infra/clock.js';
import {
  addSupplier,
  listSuppliers,
  removeSupplier,
  rotateSupplierSecret,
  setSupplierEnabled,
  SupplierInputError,
} from './suppliers.service.js';

export const SUPPLIER_USAGE = `  supplier add <code> <name>          a supplier that pushes feeds to POST /integration/supplier/<code>/<kind>;
                                      prints its signing secret once (docs/integrations.md)
  supplier rotate <code>              a new secret; the old one stops working at once
  supplier disable|enable <code>      the kill switch: its feeds are refused (403) while disabled
  supplier remove <code>              its products stay, kept by the back office's feed from then on
  supplier list                       codes, names, state, active products (never the secrets)`;

/** `storefront supplier ...`. */
export function supplierCommand(
  deps: { db: Kysely<Database>; clock: Clock },
  args: string[],
  print: (line: string) => void,
): Promise<void> {
  // A malformed code or name is a bad argument, as a malformed export-user name is.
  return inputErrorsAsUsage(`supplier ${args[0]}`, SupplierInputError, () => runSupplierCommand(deps, args, print));
}

async function runSupplierCommand(
  { db, clock }: { db: Kysely<Database>; clock: Clock },
  args: string[],
  print: (line: string) => void,
): Promise<void> {
  const [action, code, ...rest] = args;
  if (action === 'list' && code === undefined) {
    const suppliers = await listSuppliers(db);
    if (suppliers.length === 0) print('No suppliers.');
    for (const supplier of suppliers) {
      const state = supplier.disabled_at === null ? 'enabled' : `DISABLED ${toRfc3339(supplier.disabled_at)}`;
      print(
        `${supplier.code}\t${supplier.name}\t${state}\t${supplier.activeProducts} active products\tsecret from ${toRfc3339(supplier.secret_rotated_at)}`,
      );
    }
    return;
  }
  if (action === 'add' && code !== undefined && rest.length > 0) {
    const secret = await addSupplier(db, code, rest.join(' '), clock.now());
    print(`Supplier "${code}" added. Its signing secret (shown only now; hand it over securely):`);
    print(secret);
    return;
  }
  if (code !== undefined && rest.length === 0) {
    switch (action) {
      case 'rotate':
        print(`Supplier "${code}": new signing secret (the old one no longer works):`);
        print(await rotateSupplierSecret(db, code, clock.now()));
        return;
      case 'disable':
      case 'enable':
        await setSupplierEnabled(db, code, action === 'enable', clock.now());
        print(`Supplier "${code}": ${action}d.`);
        return;
      case 'remove': {
        const products = await db.transaction().execute((trx) => removeSupplier(trx, code));
        print(`Supplier "${code}" removed; its ${products} active products are the back office's now.`);
        return;
      }
    }
  }
  throw new CliUsageError('supplier: expected add <code> <name>, rotate|disable|enable|remove <code>, or list');
}
