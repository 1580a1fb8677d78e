import { sql, type Kysely } from 'kysely';

// Processing granted a download entitlement to every digital line of a paid order, virtual gift
// cards too: a card is money, issued and mailed to its recipient, yet it showed in the buyer's
// download list (once its product had a file, and a link to it was served), as something to download
// in the purchase history, and among the downloads of the data export. Processing now grants only
// downloads (modules/orders/download-lines.ts: a digital line that is not a gift card); this takes
// back what it granted to gift-card lines before. Their download_item rows go with them (the
// entitlement's delete trigger, migration 2026_11_28_0600); their download counts stay, as a
// cancelled order's do. An order line's product type is its product's at checkout, one per product.

const GIFT_CARD_LINE = sql`
  select 1 from order_line l
  where l.order_id = order_entitlement.order_id
    and l.product_id = order_entitlement.product_id
    and l.product_type in ('GIFT_CARD', 'VIRTUAL_GIFT_CARD')`;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`delete from order_entitlement where exists (${GIFT_CARD_LINE})`.execute(db);
}

/**
 * Grants them again as processing did: to the digital gift-card lines of every order processed
 * (moved to PROCESSING) and not cancelled since, at the time it was processed.
 */
export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    insert into order_entitlement (order_id, product_id, client_account_id, created_at)
    select distinct o.id, l.product_id, o.client_account_id,
           (select min(c.created_at) from order_status_change c where c.order_id = o.id and c.to_status = 'PROCESSING')
    from customer_order o
    join order_line l on l.order_id = o.id
    where o.status <> 'CANCELLED'
      and l.is_digital = ${true}
      and l.product_type in ('GIFT_CARD', 'VIRTUAL_GIFT_CARD')
      and exists (select 1 from order_status_change c where c.order_id = o.id and c.to_status = 'PROCESSING')
      and not exists (
        select 1 from order_entitlement e where e.order_id = o.id and e.product_id = l.product_id
      )`.execute(db);
}
