import type { Kysely } from 'kysely';

// `webhook add` now refuses a URL with a user name or password in it (fetch refuses to build a request
// to one, so no event ever reached it: each went dead after its attempts). Endpoints added before kept
// such a URL, and with it the receiver's password in clear: `webhook list` printed it, and every failed
// attempt stored fetch's error, which quotes the whole URL (`webhook deliveries`, `webhook attempts`).
// An endpoint can now be switched off with the reason (`disabled_at`, `disabled_reason`): the dispatcher
// fans out nothing to it and sends it nothing, and `webhook list` shows why. This switches those
// endpoints off, keeps their URL without the credentials and rewrites the errors that quoted them; the
// operator adds the endpoint again with the receiver's URL for signed requests.

export const CREDENTIALS_REMOVED_REASON =
  'its URL held a user name or password (now removed), to which no request can be sent: every delivery failed. ' +
  'Remove it and add it again with a URL without them (the requests are signed with the secret)';
const ERROR_WITHOUT_URL = 'TypeError: Request cannot be constructed from a URL that includes credentials (URL not kept)';

/** The URL without its user name and password; undefined when it has neither (or is not a URL). */
function withoutCredentials(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.username === '' && parsed.password === '') return undefined;
  parsed.username = '';
  parsed.password = '';
  return parsed.toString();
}

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_endpoint').addColumn('disabled_at', 'bigint').execute();
  await db.schema.alterTable('webhook_endpoint').addColumn('disabled_reason', 'varchar(500)').execute();
  const now = Date.now();
  // Only a URL with an @ can hold credentials; each is parsed, as `webhook add` does, to tell.
  const candidates: Array<{ id: number; url: string }> = await db
    .selectFrom('webhook_endpoint')
    .select(['id', 'url'])
    .where('url', 'like', '%@%')
    .execute();
  for (const endpoint of candidates) {
    const url = withoutCredentials(endpoint.url);
    if (url === undefined) continue;
    await db
      .updateTable('webhook_endpoint')
      .set({ url, disabled_at: now, disabled_reason: CREDENTIALS_REMOVED_REASON })
      .where('id', '=', endpoint.id)
      .execute();
    const deliveries = db.selectFrom('webhook_delivery').select('id').where('endpoint_id', '=', endpoint.id);
    await db
      .updateTable('webhook_delivery')
      .set({ last_error: ERROR_WITHOUT_URL })
      .where('endpoint_id', '=', endpoint.id)
      .where('last_error', 'like', '%includes credentials%')
      .execute();
    await db
      .updateTable('webhook_attempt')
      .set({ error: ERROR_WITHOUT_URL })
      .where('delivery_id', 'in', deliveries)
      .where('error', 'like', '%includes credentials%')
      .execute();
  }
}

/** The credentials removed are not kept anywhere: the endpoints stay as they are, and are no longer switched off. */
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_endpoint').dropColumn('disabled_reason').execute();
  await db.schema.alterTable('webhook_endpoint').dropColumn('disabled_at').execute();
}
