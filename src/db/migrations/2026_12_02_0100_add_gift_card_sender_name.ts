import type { Kysely } from 'kysely';

// Who a virtual gift card is from, as the buyer wants the recipient to read it ("Mari"): the card's
// mail said only that it came from the store. Optional, so every row made before has none (''),
// and its mail says the store, as it did. Kept along the card's way: the basket line, the order's
// purchase, the issued card (whose row the delivery-day mail is made from).

export async function up(db: Kysely<any>): Promise<void> {
  for (const table of ['basket_virtual_gift_card', 'virtual_gift_card_purchase', 'gift_card'])
    await db.schema
      .alterTable(table)
      .addColumn('sender_name', 'text', (column) => column.notNull().defaultTo(''))
      .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['basket_virtual_gift_card', 'virtual_gift_card_purchase', 'gift_card'])
    await db.schema.alterTable(table).dropColumn('sender_name').execute();
}
