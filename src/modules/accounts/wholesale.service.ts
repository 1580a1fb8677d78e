import type { Db } from '../../db/database.js';
import { isLanguage, type Language } from '../../i18n/index.js';
import { isErasedEmail } from '../../infra/personal-data.js';
import type { AccountsConfig } from './accounts.config.js';
import { queueAccountMail } from './accounts.jobs.js';
import { accountsOfUser, createClientAccount, insertCompany, isLiveAccount } from './accounts.repository.js';
import type { WholesaleRegistrationForm } from './accounts.schemas.js';
import { companyValues, findOrCreateContact } from './registration.service.js';
import {
  decideWholesaleRequest,
  findWholesaleRequest,
  listPendingWholesaleRequests,
  setWholesaleRequestAccount,
  type WholesaleRequestRow,
} from './wholesale.repository.js';

export class WholesaleDecisionError extends Error {}

type WholesaleConfig = Pick<AccountsConfig, 'jobs'>;

/** The request with that id while it waits for a decision, and its contact's data was not erased. */
export async function pendingWholesaleRequest(db: Db, id: number): Promise<WholesaleRequestRow> {
  const request = await findWholesaleRequest(db, id);
  if (!request) throw new WholesaleDecisionError(`no wholesale request ${id}`);
  refuseErased(request);
  if (request.status !== 'PENDING') throw new WholesaleDecisionError(`wholesale request ${id} is already ${request.status}`);
  return request;
}

/**
 * The erasure of the contact (modules/gdpr) empties their requests (the email a placeholder, the form
 * `{}`) and closes a pending one (ERASED): nothing is left to decide on, and an approval that read it
 * before made a new person and company of the form it had read (or failed on the empty one). Told by
 * the email, before the status: one decided before the erasure is emptied too, and is refused as erased.
 */
function refuseErased(request: WholesaleRequestRow): void {
  if (isErasedEmail(request.email)) throw new WholesaleDecisionError(`wholesale request ${request.id}: its contact's data was erased`);
}

/**
 * Records the decision on the request as read, unless another operator decided first or the contact's
 * erasure, waited for at the contact's locks (an approval takes them first), emptied it meanwhile.
 */
async function decide(trx: Db, request: WholesaleRequestRow, status: 'APPROVED' | 'REJECTED', now: number): Promise<void> {
  if (await decideWholesaleRequest(trx, request, status, now)) return;
  const current = await findWholesaleRequest(trx, request.id);
  if (current) refuseErased(current);
  throw new WholesaleDecisionError(`wholesale request ${request.id} was decided meanwhile`);
}

export function pendingWholesaleRequests(db: Db, limit = 100): Promise<WholesaleRequestRow[]> {
  return listPendingWholesaleRequests(db, limit);
}

/**
 * Approval creates the company and the wholesale account. Whoever applied may have named anyone
 * as the contact, so the account is usable only once the contact followed the link mailed now:
 * the verification mail for a contact who never set a password, a request to confirm the account
 * for one who did. Answers the account code.
 */
export async function approveWholesale(trx: Db, config: WholesaleConfig, request: WholesaleRequestRow, now: number): Promise<string> {
  const form = JSON.parse(request.form) as WholesaleRegistrationForm;
  const language: Language = isLanguage(request.language) ? request.language : 'et';
  // The contact's locks before the request's row, in the erasure's order (it locks the person's
  // accounts, then anonymises their requests): the other way round, an approval and the contact's
  // erasure at once each waited for the other.
  const { userId } = await findOrCreateContact(trx, form, language, now);
  await decide(trx, request, 'APPROVED', now);
  // A wholesale account of theirs in use is the one approved; one a company removed stays with that
  // company (its orders are the company's), so the approval makes a new company and account.
  const existing = (await accountsOfUser(trx, userId)).find(
    (a) => a.type === 'WHOLESALE' && a.store_code === request.store_code && isLiveAccount(a),
  );
  const account =
    existing ??
    (await createClientAccount(
      trx,
      {
        userId,
        storeCode: request.store_code,
        type: 'WHOLESALE',
        companyId: await insertCompany(trx, companyValues(form), now),
        status: 'PENDING_CONFIRMATION',
      },
      now,
    ));
  await setWholesaleRequestAccount(trx, request.id, account.id);
  const mail =
    account.status === 'ACTIVE'
      ? ({ kind: 'wholesaleApproved', userId, storeCode: request.store_code, language } as const)
      : ({ kind: 'verification', userId, clientAccountId: account.id, language } as const);
  await queueAccountMail(trx, config, mail, now);
  return account.code;
}

export async function rejectWholesale(trx: Db, config: WholesaleConfig, request: WholesaleRequestRow, now: number): Promise<void> {
  await decide(trx, request, 'REJECTED', now);
  await queueAccountMail(trx, config, { kind: 'wholesaleRejected', requestId: request.id }, now);
}
