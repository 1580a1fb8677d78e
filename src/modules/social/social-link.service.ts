import type { Db } from '../../db/database.js';
import type { Language } from '../../i18n/index.js';
import { badRequest, forbidden } from '../../infra/domain-error.js';
import { hashToken } from '../../infra/tokens.js';
import { identityOf } from './providers.js';
import type { SocialConfig } from './social.config.js';
import { consumeAuthRecord, findUsableAuthRecord } from './social.repository.js';
import { linkIdentity, lockLinkingBearer } from './social.service.js';
import type { SocialProvider } from './social.tables.js';

/**
 * Finishes a link the web flow left pending: only the user who started the flow (by bearer), once,
 * within ten minutes. The identity must not belong to someone else (409); the user is mailed.
 * Another user's call is refused and leaves the pending link as it was.
 */
export async function confirmLink(
  trx: Db,
  config: SocialConfig,
  input: { authId: string; userId: number; tokenHash: string },
  now: number,
): Promise<{ linked: SocialProvider }> {
  const idHash = hashToken(input.authId);
  const record = await findUsableAuthRecord(trx, idHash, now);
  if (!record || record.link_user_id === null) throw badRequest('auth.badLinkId');
  if (record.link_user_id !== input.userId) throw forbidden('auth.linkNotYours');
  await lockLinkingBearer(trx, input);
  if (!(await consumeAuthRecord(trx, idHash, now))) throw badRequest('auth.badLinkId');
  await linkIdentity(trx, config, input.userId, identityOf(record), record.language as Language, now);
  return { linked: record.provider };
}
