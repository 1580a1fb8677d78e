import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { isLanguage, type Language } from '../../i18n/index.js';
import { systemClock, type Clock } from '../../infra/clock.js';
import type { JobHandler } from '../../infra/jobs/worker.js';
import type { Mailer } from '../../infra/mail/mailer.js';
import { newToken } from '../../infra/tokens.js';
import { getStore } from '../store/index.js';
import type { AccountsConfig } from './accounts.config.js';
import type { AccountMail } from './accounts.jobs.js';
import {
  backofficeMail,
  identityLinkedMail,
  otherStoreMail,
  providerName,
  renderMail,
  resetMail,
  verificationMail,
  wholesaleApprovedMail,
  wholesaleRejectedMail,
  type MailContent,
} from './accounts.mail-templates.js';
import { accountsOfUser, findAccount, findUserById, updateUser } from './accounts.repository.js';
import { findWholesaleRequest } from './wholesale.repository.js';

export interface AccountMailDeps {
  db: Kysely<Database>;
  config: Pick<AccountsConfig, 'accounts' | 'mail'>;
  mailer: Mailer;
  clock?: Clock;
}

const DAY_MS = 86_400_000;

/**
 * Sends one account mail. A verification or reset mail mints its token here and stores only its
 * hash, committed before sending: a retry after a failed send mints a fresh one, and a token that
 * was never delivered is useless to anyone.
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

  return async (mail: AccountMail, { log }) => {
    const now = clock.now();
    // Without SMTP (development) the link is logged so a developer can follow it; with a real
    // mail server a token never reaches the logs.
    const logDevelopmentLink = (link: string, to: string) => {
      if (config.mail.smtpUrl === undefined) log.info({ to, link }, 'mail written to MAIL_DIR');
    };
    switch (mail.kind) {
      case 'verification': {
        const user = await findUserById(db, mail.userId);
        const account = await findAccount(db, mail.clientAccountId);
        if (!user || !account) return 'skipped';
        const store = await storeOf(account.store_code);
        const { token, hash } = newToken();
        await updateUser(
          db,
          user.id,
          {
            verification_token_hash: hash,
            verification_expires_at: now + config.accounts.verificationTokenTtlMs,
            verification_client_account_id: account.id,
          },
          now,
        );
        const url = `${store.frontendUrl}${config.accounts.verifyEmailPath}?verificationToken=${token}`;
        logDevelopmentLink(url, user.email);
        const days = Math.round(config.accounts.verificationTokenTtlMs / DAY_MS);
        return send(user.email, verificationMail[mail.language]({ name: displayName(user), storeName: store.name, url, days }));
      }
      case 'reset': {
        const user = await findUserById(db, mail.userId);
        if (!user) return 'skipped';
        const store = await storeOf(mail.storeCode);
        const { token, hash } = newToken();
        await updateUser(db, user.id, { reset_token_hash: hash, reset_expires_at: now + config.accounts.resetTokenTtlMs }, now);
        const url = `${store.frontendUrl}${config.accounts.setNewPasswordPath}?passwordResetToken=${token}`;
        logDevelopmentLink(url, user.email);
        const minutes = Math.round(config.accounts.resetTokenTtlMs / 60_000);
        return send(user.email, resetMail[mail.language]({ name: displayName(user), storeName: store.name, url, minutes }));
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
        return send(config.mail.backofficeEmails, backofficeMail(mail));
      }
    }
  };
}

function displayName(user: { first_name: string | null; email: string }): string {
  return user.first_name ?? user.email;
}
