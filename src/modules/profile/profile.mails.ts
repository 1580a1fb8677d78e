import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { translate, type MessageKey } from '../../i18n/index.js';
import { systemClock, type Clock } from '../../infra/clock.js';
import type { JobContext, JobHandler } from '../../infra/jobs/worker.js';
import type { Mailer } from '../../infra/mail/mailer.js';
import { mailboxKey } from '../../infra/email-address.js';
import { countHit, type RateLimit } from '../../infra/rate-limit.js';
import { newToken } from '../../infra/tokens.js';
import { renderMail, type MailContent } from '../accounts/index.js';
import { getStore } from '../store/index.js';
import { CONFIRM_EMAIL_PATH, EMAIL_CHANGE_TTL_MS, type ProfileMail } from './profile.jobs.js';
import { findEmailChange, findProfileUser, setEmailChangeToken } from './profile.repository.js';

export interface ProfileMailDeps {
  db: Kysely<Database>;
  mailer: Mailer;
  clock?: Clock;
}

/**
 * Confirmation links one new address is mailed in an hour, whoever asked. The limit per user
 * (identity.service.ts) bounds one account, but anyone can register many and have each mail the
 * same address. Past it the mail is not sent (the asking user may ask again later): the request
 * answered as always, so nobody learns from it what others asked.
 */
export const EMAIL_CHANGE_MAILS_PER_ADDRESS: RateLimit = { max: 5, windowMs: 3_600_000 };

/**
 * Sends one profile mail. The confirmation of an email change mints its token here, committed
 * before sending: a retry after a failed send mints a fresh one, so a token never delivered is
 * useless; a job for a change replaced since (the client asked for another address) does nothing.
 */
export function profileMailHandler(deps: ProfileMailDeps): JobHandler {
  const { db, mailer } = deps;
  const clock = deps.clock ?? systemClock;
  const send = async (to: string, content: MailContent) => {
    await mailer.send({ to, ...renderMail(content) });
    return 'sent';
  };

  return async (mail: ProfileMail, context: JobContext) => {
    const user = await findProfileUser(db, mail.userId);
    if (!user) return 'skipped';
    const store = await getStore(db, mail.storeCode);
    if (!store) throw new Error(`unknown store ${mail.storeCode}`);
    const say = (key: MessageKey, params: Record<string, string | number> = {}) => translate(mail.language, key, params);
    const greeting = say('profile.mail.greeting', { name: user.first_name ?? user.email });
    switch (mail.kind) {
      case 'confirmEmail': {
        const pending = await findEmailChange(db, mail.userId);
        if (!pending || pending.new_email !== mail.newEmail) return 'skipped';
        // Counted at the job's first attempt: a retry after a failed send is the same mail. Not by the token
        // minted yet: a change asked for again (another address, then this one) shares its row with the
        // earlier job, which minted the token, and each job mails the address.
        if (context.job.attempts === 1) {
          const mailed = await countHit(
            db,
            `profile:confirm-email:${mailboxKey(mail.newEmail)}`,
            EMAIL_CHANGE_MAILS_PER_ADDRESS,
            clock.now(),
          );
          if (mailed > EMAIL_CHANGE_MAILS_PER_ADDRESS.max) return 'throttled';
        }
        const { token, hash } = newToken();
        if (!(await setEmailChangeToken(db, mail.userId, mail.newEmail, hash, clock.now() + EMAIL_CHANGE_TTL_MS))) return 'skipped';
        const url = `${store.frontendUrl}${CONFIRM_EMAIL_PATH}?token=${token}`;
        return send(mail.newEmail, {
          subject: say('profile.mail.confirmSubject', { store: store.name }),
          paragraphs: [
            greeting,
            say('profile.mail.confirmText', { store: store.name, hours: EMAIL_CHANGE_TTL_MS / 3_600_000 }),
            say('profile.mail.ignore'),
          ],
          action: { label: say('profile.mail.confirmAction'), url },
        });
      }
      case 'emailChanged':
        return send(mail.oldEmail, {
          subject: say('profile.mail.changedSubject', { store: store.name }),
          paragraphs: [greeting, say('profile.mail.changedText', { store: store.name, email: mail.newEmail })],
        });
      case 'passwordChanged':
        return send(user.email, {
          subject: say('profile.mail.passwordSubject', { store: store.name }),
          paragraphs: [greeting, say('profile.mail.passwordText', { store: store.name })],
        });
    }
  };
}
