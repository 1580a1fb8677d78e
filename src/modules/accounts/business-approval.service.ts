import type { Db } from '../../db/database.js';
import { isLanguage } from '../../i18n/index.js';
import type { AccountsConfig } from './accounts.config.js';
import { queueAccountMail } from './accounts.jobs.js';
import { changeAccountStatus, findAccount, findUserById, listPendingBusinessAccounts } from './accounts.repository.js';

// The back office's decision on business registrations in the stores listed in
// BUSINESS_APPROVAL_STORES: an approved account is then confirmed by its contact through the
// link mailed on approval; a declined one is never usable (nobody is mailed: the contact may
// never have asked for it).

export class BusinessDecisionError extends Error {}

export const pendingBusinessAccounts = (db: Db) => listPendingBusinessAccounts(db, 100);

/** Approves a waiting business account: it waits for its contact's confirmation next, by the mail queued here. */
export async function approveBusinessAccount(trx: Db, config: Pick<AccountsConfig, 'jobs'>, id: number, now: number): Promise<void> {
  const account = await findAccount(trx, id);
  if (!account || account.type !== 'BUSINESS') throw new BusinessDecisionError(`no business account ${id}`);
  if (!(await changeAccountStatus(trx, id, ['PENDING_APPROVAL'], 'PENDING_CONFIRMATION'))) {
    throw new BusinessDecisionError(`business account ${id} is ${account.status}, not waiting for approval`);
  }
  const user = (await findUserById(trx, account.user_id))!;
  const language = isLanguage(user.language) ? user.language : 'et';
  await queueAccountMail(trx, config, { kind: 'verification', userId: user.id, clientAccountId: id, language }, now);
}

export async function rejectBusinessAccount(trx: Db, id: number): Promise<void> {
  const account = await findAccount(trx, id);
  if (!account || account.type !== 'BUSINESS') throw new BusinessDecisionError(`no business account ${id}`);
  if (!(await changeAccountStatus(trx, id, ['PENDING_APPROVAL'], 'REJECTED'))) {
    throw new BusinessDecisionError(`business account ${id} is ${account.status}, not waiting for approval`);
  }
}
