import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.js';

// The demo stores' office contact data (GET /contact, and where the contact form's mails go).
// Only blank fields are filled, so an operator's own data (`storefront contact set`) stays.

const CONTACTS: Record<string, { company_name: string; email: string; phone: string; address: string }> = {
  WEB: {
    company_name: 'Raamatupood OÜ',
    email: 'info@raamatupood.example',
    phone: '+372 600 1234',
    address: 'Viru väljak 4, 10111 Tallinn',
  },
  WEB2: { company_name: 'Raamatupood OÜ', email: 'outlet@raamatupood.example', phone: '+372 600 1235', address: 'Riia 1, 51004 Tartu' },
};

export async function writeContactDemo(trx: Transaction<Database>, now: number): Promise<void> {
  for (const [storeCode, contact] of Object.entries(CONTACTS)) {
    for (const [column, value] of Object.entries(contact) as Array<[keyof typeof contact, string]>) {
      await trx
        .updateTable('store_contact')
        .set({ [column]: value, updated_at: now })
        .where('store_code', '=', storeCode)
        .where(column, 'is', null)
        .execute();
    }
  }
}
