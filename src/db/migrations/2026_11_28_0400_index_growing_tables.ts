import { sql, type Kysely } from 'kysely';

// Tables that grow every day were read by columns no index led with, from the hourly maintenance,
// the worker's scans and a few requests: each read walked the table (or a status's every row),
// the write lock held where it was a delete. Measured on SQLite (EXPLAIN QUERY PLAN and timings):
// pruning 10,000 old integration events beside 20,000 webhook deliveries took 21 s with the write
// lock held (each event's NOT EXISTS and its ON DELETE CASCADE scanned the deliveries, whose only
// index starts with the endpoint), 46 ms with webhook_delivery(event_id).

interface NewIndex {
  name: string;
  table: string;
  columns: string[];
  /** A partial index's condition (the same SQL on both engines). */
  where?: string;
}

const INDEXES: NewIndex[] = [
  // The integration-event prune: an event's deliveries, old events, delivered deliveries by age.
  { name: 'webhook_delivery_event_idx', table: 'webhook_delivery', columns: ['event_id'] },
  { name: 'integration_event_created_idx', table: 'integration_event', columns: ['created_at'] },
  { name: 'webhook_delivery_delivered_idx', table: 'webhook_delivery', columns: ['status', 'delivered_at'] },
  // The back-in-stock scan (every minute): a store and audience's pending requests in id order.
  {
    name: 'back_in_stock_request_due_idx',
    table: 'back_in_stock_request',
    columns: ['store_code', 'audience', 'id'],
    where: 'notified_at is null',
  },
  // The hourly prunes: guest baskets, done jobs and rate-limit windows by age.
  { name: 'basket_guest_updated_idx', table: 'basket', columns: ['client_account_id', 'updated_at'] },
  { name: 'job_status_updated_idx', table: 'job', columns: ['status', 'updated_at'] },
  { name: 'rate_limit_window_idx', table: 'rate_limit', columns: ['window_start'] },
  // "Your data" (export and erasure) by the person's client codes and addresses.
  { name: 'session_action_client_idx', table: 'session_action', columns: ['client_code', 'id'] },
  { name: 'sales_history_client_idx', table: 'sales_history', columns: ['client_code', 'id'] },
  { name: 'back_in_stock_request_email_idx', table: 'back_in_stock_request', columns: ['email'] },
  { name: 'newsletter_request_email_idx', table: 'newsletter_request', columns: ['email', 'store_code'] },
  { name: 'virtual_gift_card_purchase_card_idx', table: 'virtual_gift_card_purchase', columns: ['gift_card_id'] },
  { name: 'virtual_gift_card_purchase_buyer_idx', table: 'virtual_gift_card_purchase', columns: ['buyer_email'] },
  { name: 'virtual_gift_card_purchase_buyer_account_idx', table: 'virtual_gift_card_purchase', columns: ['buyer_client_account_id'] },
  { name: 'virtual_gift_card_purchase_recipient_idx', table: 'virtual_gift_card_purchase', columns: ['recipient_email'] },
  // An erased user's sign-ins in flight (social linking), found by the user.
  { name: 'auth_record_link_user_idx', table: 'auth_record', columns: ['link_user_id'] },
  { name: 'oauth_transaction_link_user_idx', table: 'oauth_transaction', columns: ['link_user_id'] },
  // A removed company user's sessions; a removed card's subscriptions; the card prune.
  { name: 'access_token_client_idx', table: 'access_token', columns: ['client_account_id'] },
  { name: 'subscription_card_idx', table: 'subscription', columns: ['card_id'] },
  { name: 'subscription_card_state_idx', table: 'subscription_card', columns: ['state', 'created_at'] },
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const index of INDEXES) {
    let create = db.schema.createIndex(index.name).on(index.table).columns(index.columns);
    if (index.where) create = create.where(sql.raw<boolean>(index.where));
    await create.execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const index of [...INDEXES].reverse()) await db.schema.dropIndex(index.name).execute();
}
