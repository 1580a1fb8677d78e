import type { Db } from '../../db/database.js';
import { toRfc3339 } from '../../db/time.js';
import { accountIdsOf, type PersonalDataPart, type PersonalDataSubject } from '../../infra/personal-data.js';
import { touchExportedAccounts } from './accounts.repository.js';
import { eraseWholesaleRequests, wholesaleRequestsOf } from './wholesale.repository.js';

// The login identity, the client accounts, wholesale requests (made with the login email or approved
// into one of the accounts) and the logins (access tokens) of a person. Password and token hashes
// are never exported. The erasure runs last of all parts: it replaces the email the other parts look
// rows up by.

const time = (ms: number | null) => (ms === null ? null : toRfc3339(Number(ms)));

async function exportAccounts(db: Db, subject: PersonalDataSubject) {
  const user = await db
    .selectFrom('app_user')
    .select([
      'email',
      'email_verified',
      'first_name',
      'last_name',
      'phone',
      'birthday',
      'gender',
      'language',
      'newsletter',
      'activated_at',
      'terms_accepted_at',
      'created_at',
      'updated_at',
    ])
    .where('id', '=', subject.userId)
    .executeTakeFirstOrThrow();
  const accounts =
    subject.accounts.length === 0
      ? []
      : await db
          .selectFrom('client_account')
          .select(['code', 'store_code', 'type', 'role', 'status', 'discount_percent', 'created_at'])
          .where('id', 'in', accountIdsOf(subject))
          .orderBy('id')
          .execute();
  const wholesaleRequests = await wholesaleRequestsOf(db, { email: subject.email, clientAccountIds: accountIdsOf(subject) })
    .select(['store_code', 'company_name', 'form', 'language', 'status', 'created_at', 'decided_at'])
    .orderBy('id')
    .execute();
  const logins = await db
    .selectFrom('access_token')
    .innerJoin('client_account', 'client_account.id', 'access_token.client_account_id')
    .select(['client_account.code', 'access_token.login_method', 'access_token.created_at', 'access_token.expires_at'])
    .where('access_token.user_id', '=', subject.userId)
    .orderBy('access_token.created_at', 'desc')
    .limit(1000)
    .execute();
  return {
    user: {
      email: user.email,
      emailVerified: Boolean(user.email_verified),
      firstName: user.first_name,
      lastName: user.last_name,
      phone: user.phone,
      birthday: user.birthday,
      gender: user.gender,
      language: user.language,
      // The flag follows the login email's subscriptions (modules/newsletter): while that address is
      // not confirmed they are its owner's, and the account is shown without one, as GET /client-account does.
      newsletter: subject.loginEmailConfirmed && Boolean(user.newsletter),
      activatedAt: time(user.activated_at),
      termsAcceptedAt: time(user.terms_accepted_at),
      createdAt: time(user.created_at),
      updatedAt: time(user.updated_at),
    },
    clientAccounts: accounts.map((account) => ({
      code: account.code,
      store: account.store_code,
      type: account.type,
      role: account.role,
      status: account.status,
      discountPercent: Number(account.discount_percent),
      createdAt: time(account.created_at),
    })),
    wholesaleRequests: wholesaleRequests.map((request) => ({
      store: request.store_code,
      companyName: request.company_name,
      form: JSON.parse(request.form) as unknown,
      language: request.language,
      status: request.status,
      createdAt: time(request.created_at),
      decidedAt: time(request.decided_at),
    })),
    logins: logins.map((login) => ({
      clientCode: login.code,
      method: login.login_method,
      createdAt: time(login.created_at),
      expiresAt: time(login.expires_at),
    })),
  };
}

async function eraseAccounts(trx: Db, subject: PersonalDataSubject, now: number) {
  await trx.deleteFrom('access_token').where('user_id', '=', subject.userId).execute();
  await eraseWholesaleRequests(trx, { email: subject.email, clientAccountIds: accountIdsOf(subject) }, subject.erasedEmail, now);
  if (subject.accounts.length > 0) {
    await trx.updateTable('client_account').set({ status: 'ERASED' }).where('id', 'in', accountIdsOf(subject)).execute();
    await trx.deleteFrom('invitation_token').where('client_account_id', 'in', accountIdsOf(subject)).execute();
  }
  await trx
    .updateTable('app_user')
    .set({
      email: subject.erasedEmail,
      password_hash: null,
      verification_token_hash: null,
      verification_expires_at: null,
      verification_client_account_id: null,
      reset_token_hash: null,
      reset_expires_at: null,
      first_name: null,
      last_name: null,
      phone: null,
      birthday: null,
      gender: null,
      newsletter: false,
      updated_at: now,
    })
    .where('id', '=', subject.userId)
    .execute();
  // The export's client-account items lose the gender and birthday: an analyst finds them changed.
  await touchExportedAccounts(trx, { userId: subject.userId }, now);
}

/** The accounts module's part of "your data"; the gdpr registry runs it last. */
export const accountsPersonalData: PersonalDataPart = { name: 'account', export: exportAccounts, erase: eraseAccounts };
