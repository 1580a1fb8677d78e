import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.js';

// The demo stores' names. A store has one name, a proper name that every language's mails and
// `/app/config` carry as it is (the spec and the domain notes give stores no translations); the
// migration that creates the stores can only put placeholders there ('Main store', 'Outlet'), which
// made the demo's Estonian and Russian mails end in English. The demo names them after the brand its
// other data uses (Raamatupood OÜ, raamatupood.example), and only while a placeholder stands, so a
// name an operator set (`storefront store set <CODE> --name=`) stays.

const NAMES: Record<string, { placeholder: string; name: string }> = {
  WEB: { placeholder: 'Main store', name: 'Raamatupood' },
  WEB2: { placeholder: 'Outlet', name: 'Raamatupood Outlet' },
};

export async function writeStoreNamesDemo(trx: Transaction<Database>, now: number): Promise<void> {
  for (const [code, { placeholder, name }] of Object.entries(NAMES)) {
    await trx.updateTable('web_store').set({ name, updated_at: now }).where('code', '=', code).where('name', '=', placeholder).execute();
  }
}
