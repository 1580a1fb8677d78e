import type { Kysely } from 'kysely';
import { CREDENTIALS_REMOVED_REASON } from './2026_12_01_1010_disable_webhook_urls_with_credentials.js';

// The reason migration 1010 gave the endpoints it switched off told the operator to remove them and
// add them again, which loses the endpoint's id, its deliveries waiting and its log. `webhook enable`
// now switches one back on with all of them kept; the reason `webhook list` shows says so instead.

export const CREDENTIALS_REMOVED_ENABLE_REASON =
  'its URL held a user name or password (now removed), to which no request can be sent: every delivery failed. ' +
  'Once the receiver takes signed requests (the secret) at this URL, switch it back on: webhook enable <name> ' +
  '(--url <url> for another URL); its deliveries and log are kept';

async function reword(db: Kysely<any>, from: string, to: string): Promise<void> {
  await db.updateTable('webhook_endpoint').set({ disabled_reason: to }).where('disabled_reason', '=', from).execute();
}

export async function up(db: Kysely<any>): Promise<void> {
  await reword(db, CREDENTIALS_REMOVED_REASON, CREDENTIALS_REMOVED_ENABLE_REASON);
}

export async function down(db: Kysely<any>): Promise<void> {
  await reword(db, CREDENTIALS_REMOVED_ENABLE_REASON, CREDENTIALS_REMOVED_REASON);
}
