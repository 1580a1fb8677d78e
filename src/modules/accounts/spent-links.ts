import type { Db } from '../../db/database.js';
import { deleteInBatches } from '../../db/batched-delete.js';
import type { SpentLinkKind, SpentLinkTable } from './accounts.tables.js';

// One-time links (the registration's verification, a password reset, an email change) are spent by
// the first request that follows them: their token is cleared in the transaction of the work. The
// same link again, a double click or a mail client's second send, then looked like a link that had
// never worked (400). A spent link is recorded here in that same transaction, by its token's hash,
// until the token would have expired, so that a repeat can answer as the first did while doing none
// of its work again; what a repeat may answer is each link's own rule (verification.service.ts,
// password-reset.service.ts, profile's confirmEmailChange).

/** Records that the link with this token hash was followed; in the transaction that spent it. */
export async function recordSpentLink(
  trx: Db,
  link: { tokenHash: string; kind: SpentLinkKind; userId: number; clientAccountId?: number; expiresAt: number },
  now: number,
): Promise<void> {
  await trx
    .insertInto('spent_link')
    .values({
      token_hash: link.tokenHash,
      kind: link.kind,
      user_id: link.userId,
      client_account_id: link.clientAccountId ?? null,
      spent_at: now,
      expires_at: link.expiresAt,
    })
    .execute();
}

/** The link of that kind this token hash spent, while its token would still be valid. */
export function findSpentLink(db: Db, kind: SpentLinkKind, tokenHash: string, now: number): Promise<SpentLinkTable | undefined> {
  return db
    .selectFrom('spent_link')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('kind', '=', kind)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

/** The hourly prune: spent links whose token has expired answer 400 as any expired link does. */
export function spentLinkPruning(): (db: Db, now: number) => Promise<number> {
  return (db, now) =>
    deleteInBatches(db, 'spent_link', { key: 'token_hash', where: (eb) => eb('expires_at', '<=', now), orderBy: 'expires_at' });
}

/** A person's erasure: their spent links go with the rest of their account data. */
export async function forgetSpentLinks(trx: Db, userId: number): Promise<void> {
  await trx.deleteFrom('spent_link').where('user_id', '=', userId).execute();
}
