import { isLanguage, type Language } from '../../i18n/index.js';
import { queueAccountMail } from './accounts.jobs.js';
import { accountsOfUser, createClientAccount, insertCompany, type Db } from './accounts.repository.js';
import type { WholesaleRegistrationForm } from './accounts.schemas.js';
import { companyValues, findOrCreateContact, type AccountsDeps } from './registration.service.js';

export class WholesaleDecisionError extends Error {}

async function pendingRequest(deps: AccountsDeps, id: number) {
  const request = await deps.db.selectFrom('wholesale_request').selectAll().where('id', '=', id).executeTakeFirst();
  if (!request) throw new WholesaleDecisionError(`no wholesale request ${id}`);
  if (request.status !== 'PENDING') throw new WholesaleDecisionError(`wholesale request ${id} is already ${request.status}`);
  return request;
}

/** Records the decision unless another operator decided first. */
async function decide(trx: Db, id: number, status: 'APPROVED' | 'REJECTED', now: number): Promise<void> {
  const decided = await trx
    .updateTable('wholesale_request')
    .set({ status, decided_at: now })
    .where('id', '=', id)
    .where('status', '=', 'PENDING')
    .executeTakeFirst();
  if (decided.numUpdatedRows === 0n) throw new WholesaleDecisionError(`wholesale request ${id} was decided meanwhile`);
}

export function listPendingWholesaleRequests(deps: AccountsDeps, limit = 100) {
  return deps.db.selectFrom('wholesale_request').selectAll().where('status', '=', 'PENDING').orderBy('id').limit(limit).execute();
}

/**
 * Approval creates the company and the wholesale account; a contact who never set a password
 * gets the verification mail, one who did is told the account is ready.
 */
export async function approveWholesale(deps: AccountsDeps, id: number, now = Date.now()): Promise<string> {
  const request = await pendingRequest(deps, id);
  const form = JSON.parse(request.form) as WholesaleRegistrationForm;
  const language: Language = isLanguage(request.language) ? request.language : 'et';
  return deps.db.transaction().execute(async (trx) => {
    await decide(trx, id, 'APPROVED', now);
    const { userId, verified } = await findOrCreateContact(trx, form, language, now);
    const existing = (await accountsOfUser(trx, userId)).find((a) => a.type === 'WHOLESALE' && a.store_code === request.store_code);
    const account =
      existing ??
      (await createClientAccount(
        trx,
        { userId, storeCode: request.store_code, type: 'WHOLESALE', companyId: await insertCompany(trx, companyValues(form), now) },
        now,
      ));
    await trx.updateTable('wholesale_request').set({ client_account_id: account.id }).where('id', '=', id).execute();
    const mail = verified
      ? ({ kind: 'wholesaleApproved', userId, storeCode: request.store_code, language } as const)
      : ({ kind: 'verification', userId, clientAccountId: account.id, language } as const);
    await queueAccountMail(trx, deps.config, mail, now);
    return account.code;
  });
}

export async function rejectWholesale(deps: AccountsDeps, id: number, now = Date.now()): Promise<void> {
  await pendingRequest(deps, id);
  await deps.db.transaction().execute(async (trx) => {
    await decide(trx, id, 'REJECTED', now);
    await queueAccountMail(trx, deps.config, { kind: 'wholesaleRejected', requestId: id }, now);
  });
}
