import type { Db } from '../../db/database.js';
import { toRfc3339 } from '../../db/time.js';
import { CliUsageError } from '../../infra/cli-usage.js';
import type { Clock } from '../../infra/clock.js';
import { hashToken, isTokenShaped, lastUseIsStale, newToken } from '../../infra/tokens.js';

// Clients of the pull feed (GET /integration/events): a bearer token each, stored as its SHA-256
// like the operators' API keys, so a token is shown once and found again by its hash.

export const EVENT_FEED_USAGE = `  event-feed add <name>               a token for GET /integration/events (printed once)
  event-feed list                     clients, created, last used, revoked (never the tokens)
  event-feed revoke <name>            the token stops working at once`;

const NAME = /^[A-Za-z0-9][A-Za-z0-9 ._@-]{0,99}$/;

/** The client whose token this is (marked as used, to the minute: lastUseIsStale), or undefined. */
export async function feedClientOfToken(db: Db, token: string, now: number): Promise<{ id: number; name: string } | undefined> {
  if (!isTokenShaped(token)) return undefined;
  const row = await db
    .selectFrom('event_feed_client')
    .select(['id', 'name', 'revoked_at', 'last_used_at'])
    .where('token_hash', '=', hashToken(token))
    .executeTakeFirst();
  if (!row || row.revoked_at !== null) return undefined;
  if (lastUseIsStale(row.last_used_at, now)) {
    await db.updateTable('event_feed_client').set({ last_used_at: now }).where('id', '=', row.id).execute();
  }
  return { id: row.id, name: row.name };
}

/** `storefront event-feed ...`. */
export async function eventFeedCommand(
  { db, clock }: { db: Db; clock: Clock },
  args: string[],
  print: (line: string) => void,
): Promise<void> {
  const [action, name, ...rest] = args;
  if (action === 'list' && name === undefined) {
    const rows = await db.selectFrom('event_feed_client').selectAll().orderBy('name').execute();
    if (rows.length === 0) print('No event feed clients.');
    for (const row of rows) {
      const used = row.last_used_at === null ? 'never used' : `last used ${toRfc3339(row.last_used_at)}`;
      print(
        `${row.name}\tcreated ${toRfc3339(row.created_at)}\t${used}\t${row.revoked_at === null ? 'active' : `REVOKED ${toRfc3339(row.revoked_at)}`}`,
      );
    }
    return;
  }
  if (action === 'add' && name !== undefined && rest.length === 0) {
    if (!NAME.test(name)) throw new CliUsageError('event-feed: a name is 1 to 100 letters, digits, spaces or . _ @ -');
    const taken = await db.selectFrom('event_feed_client').select('id').where('name', '=', name).executeTakeFirst();
    // A taken name is a refusal to act on (exit 1), as api-key, supplier and webhook answer it; not a bad command line.
    if (taken) throw new Error(`event-feed: a client named "${name}" exists already`);
    const { token, hash } = newToken();
    await db.insertInto('event_feed_client').values({ name, token_hash: hash, created_at: clock.now() }).execute();
    print(`Event feed client "${name}" (the token is shown only now):`);
    print(token);
    return;
  }
  if (action === 'revoke' && name !== undefined && rest.length === 0) {
    // A misspelt name is a failure (exit 1), not a success that revoked nothing; revoking twice is fine.
    const client = await db.selectFrom('event_feed_client').select('id').where('name', '=', name).executeTakeFirst();
    if (!client) throw new Error(`no event feed client named "${name}"`);
    const result = await db
      .updateTable('event_feed_client')
      .set({ revoked_at: clock.now() })
      .where('id', '=', client.id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    print(`Event feed client "${name}": ${Number(result.numUpdatedRows) > 0 ? 'revoked' : 'already revoked'}.`);
    return;
  }
  throw new CliUsageError('event-feed: expected add <name>, list or revoke <name>');
}
