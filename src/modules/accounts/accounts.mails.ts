import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { isLanguage, type Language } from '../../i18n/index.js';
import { isErasedEmail } from '../../infra/personal-data.js';
import { systemClock, type Clock } from '../../infra/clock.js';
import { deadIfRefused } from '../../infra/jobs/refused-for-good.js';
import type { JobHandler } from '../../infra/jobs/worker.js';
import type { Mailer } from '../../infra/mail/mailer.js';
import { newToken } from '../../infra/tokens.js';
import { getStore } from '../store/index.js';
import type { AccountsConfig } from './accounts.config.js';
import type { AccountMail } from './accounts.jobs.js';
import { resolveAccountRequest } from './account-requests.js';
import {
  accountConfirmationMail,
  backofficeMail,
  identityLinkedMail,
  otherStoreMail,
  passwordChangedMail,
  providerName,
  renderMail,
  resetMail,
  verificationMail,
  companyInvitationMail,
  wholesaleApprovedMail,
  wholesaleRejectedMail,
  type MailContent,
} from './accounts.mail-templates.js';
import { accountsOfUser, findAccount, findCompany, findUserById, saveInvitationToken, updateUser } from './accounts.repository.js';
import { findWholesaleRequest } from './wholesale.repository.js';

export interface AccountMailDeps {
  db: Kysely<Database>;
  config: AccountsConfig;
  mailer: Mailer;
  clock?: Clock;
}

const DAY_MS = 86_400_000;

/**
 * Runs one account job: resolves an anonymous request (account-requests.ts), or sends one mail. A
 * verification, invitation or reset mail mints its token here and stores only its hash, committed before
 * sending: a retry after a failed send mints a fresh one, and a token that was never delivered is
 * useless to anyone. No token is ever logged: without SMTP the mail, link and all, is a file in
 * MAIL_DIR (the mailer logs where), and its link is read there.
 */
export function accountMailHandler(deps: AccountMailDeps): JobHandler {
  const { db, config, mailer } = deps;
  const clock = deps.clock ?? systemClock;
  const send = async (to: string | string[], content: MailContent) => {
    await mailer.send({ to, ...renderMail(content) });
    return 'sent';
  };
  const storeOf = async (code: string) => {
    const store = await getStore(db, code);
    if (!store) throw new Error(`unknown store ${code}`);
    return store;
  };

  return async (mail: AccountMail, { log, job }) => {
    const now = clock.now();
    switch (mail.kind) {
      case 'resetRequest':
      case 'registration':
      case 'businessRegistration':
        return resolveAccountRequest(db, config, mail, job.createdAt, now);
      case 'verification': {
        const user = await findUserById(db, mail.userId);
        const account = await findAccount(db, mail.clientAccountId);
        // No link for an account the back office has yet to approve, or declined, or its company removed.
        if (!user || !account || (account.status !== 'ACTIVE' && account.status !== 'PENDING_CONFIRMATION')) return 'skipped';
        const store = await storeOf(account.store_code);
        const { token, hash } = newToken();
        const expiresAt = now + config.accounts.verificationTokenTtlMs;
        // An invitation's link is its account's: the user's own verification link (a retail
        // registration's, say) and a company's invitation must not replace each other.
        if (mail.invitation) await saveInvitationToken(db, account.id, hash, expiresAt, now);
        else {
          const link = { verification_token_hash: hash, verification_expires_at: expiresAt, verification_client_account_id: account.id };
          await updateUser(db, user.id, link, now);
        }
        const url = `${store.frontendUrl}${config.accounts.verifyEmailPath}?verificationToken=${token}`;
        const days = Math.round(config.accounts.verificationTokenTtlMs / DAY_MS);
        const params = { name: displayName(user), storeName: store.name, url, days };
        // A person a company invited, or a verified user named as a company's contact, is asked to
        // confirm that account, and told whose it is.
        if ((mail.invitation || user.email_verified) && account.type !== 'SIMPLE' && account.company_id !== null) {
          const company = await findCompany(db, account.company_id);
          const companyParams = { ...params, companyName: company?.name ?? '', type: account.type };
          const template = mail.invitation ? companyInvitationMail : accountConfirmationMail;
          return send(user.email, template[mail.language](companyParams));
        }
        return send(user.email, verificationMail[mail.language](params));
      }
      case 'reset': {
        const user = await findUserById(db, mail.userId);
        if (!user) return 'skipped';
        const store = await storeOf(mail.storeCode);
        const { token, hash } = newToken();
        await updateUser(db, user.id, { reset_token_hash: hash, reset_expires_at: now + config.accounts.resetTokenTtlMs }, now);
        const url = `${store.frontendUrl}${config.accounts.setNewPasswordPath}?passwordResetToken=${token}`;
        const minutes = Math.round(config.accounts.resetTokenTtlMs / 60_000);
        return send(user.email, resetMail[mail.language]({ name: displayName(user), storeName: store.name, url, minutes }));
      }
      case 'passwordChanged': {
        // Read when sent: an erasure committed since has left the placeholder address, and nothing goes to it.
        const user = await findUserById(db, mail.userId);
        if (!user || isErasedEmail(user.email)) return 'skipped';
        const store = await storeOf(mail.storeCode);
        return send(
          user.email,
          passwordChangedMail[mail.language]({ name: displayName(user), storeName: store.name, via: mail.via ?? 'reset' }),
        );
      }
      case 'otherStore': {
        const user = await findUserById(db, mail.userId);
        if (!user) return 'skipped';
        const [store, other] = await Promise.all([storeOf(mail.storeCode), storeOf(mail.otherStoreCode)]);
        return send(
          user.email,
          otherStoreMail[mail.language]({
            name: displayName(user),
            storeName: store.name,
            otherStoreName: other.name,
            url: store.frontendUrl,
          }),
        );
      }
      case 'wholesaleApproved': {
        const user = await findUserById(db, mail.userId);
        if (!user) return 'skipped';
        const store = await storeOf(mail.storeCode);
        return send(
          user.email,
          wholesaleApprovedMail[mail.language]({ name: displayName(user), storeName: store.name, url: store.frontendUrl }),
        );
      }
      case 'wholesaleRejected': {
        const request = await findWholesaleRequest(db, mail.requestId);
        if (!request) return 'skipped';
        const store = await storeOf(request.store_code);
        const language: Language = isLanguage(request.language) ? request.language : 'et';
        return send(request.email, wholesaleRejectedMail[language]({ companyName: request.company_name, storeName: store.name }));
      }
      case 'identityLinked': {
        const user = await findUserById(db, mail.userId);
        if (!user) return 'skipped';
        const accounts = await accountsOfUser(db, user.id);
        const store = await storeOf(accounts[0]?.store_code ?? 'WEB');
        return send(
          user.email,
          identityLinkedMail[mail.language]({ name: displayName(user), provider: providerName(mail.provider), storeName: store.name }),
        );
      }
      case 'backoffice': {
        if (config.mail.backofficeEmails.length === 0) {
          log.info({ registration: mail.registration }, 'no BACKOFFICE_EMAILS configured: notification skipped');
          return 'skipped';
        }
        // BACKOFFICE_EMAILS is the operators' to mend: refused, the notice waits in a dead job.
        return deadIfRefused(
          send(config.mail.backofficeEmails, backofficeMail(mail)),
          `BACKOFFICE_EMAILS (${config.mail.backofficeEmails.join(', ')}) does not take mail; mend it and retry this job`,
        );
      }
    }
  };
}

function displayName(user: { first_name: string | null; email: string }): string {
  return user.first_name ?? user.email;
}
