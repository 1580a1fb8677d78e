import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { isLanguage, type Language } from '../../i18n/index.js';
import { systemClock, type Clock } from '../../infra/clock.js';
import type { JobHandler } from '../../infra/jobs/worker.js';
import type { Mailer } from '../../infra/mail/mailer.js';
import { mailboxKey } from '../../infra/email-address.js';
import { countHit } from '../../infra/rate-limit.js';
import { newToken } from '../../infra/tokens.js';
import { getStore } from '../store/index.js';
import type { NewsletterConfig } from './newsletter.config.js';
import type { NewsletterMail } from './newsletter.jobs.js';
import { findCurrentSubscriber, findRequest, setRequestToken } from './newsletter.repository.js';
import { confirmationMail, renderNewsletterMail } from './newsletter.mail-templates.js';
import { oneClickUnsubscribeUrl, unsubscribeHeaders, unsubscribeQuery, unsubscribeSecret, unsubscribeSigner } from './unsubscribe-link.js';

export interface NewsletterMailDeps {
  db: Kysely<Database>;
  config: NewsletterConfig;
  mailer: Mailer;
  clock?: Clock;
}

const HOUR_MS = 3_600_000;

/**
 * Runs one newsletter job. The confirmation mail mints its token here and stores only its hash,
 * committed before sending: a retry after a failed send mints a fresh one. An address already
 * subscribed in the store gets no mail (the request answered the same, so nobody learns it is).
 * Nor does one past NEWSLETTER_RATE_LIMIT_PER_EMAIL confirmations in the window, however they were
 * asked for: the form answers 429 at that limit, but checkout's "subscribe me" box asks with the
 * billing email any guest types, and must not fail the order, so the cap on what an inbox is sent
 * is kept here, where every confirmation passes.
 */
export function newsletterMailHandler(deps: NewsletterMailDeps): JobHandler {
  const { db, config, mailer } = deps;
  const clock = deps.clock ?? systemClock;
  return async (mail: NewsletterMail) => {
    const now = clock.now();
    const request = await findRequest(db, mail.requestId);
    if (!request || request.confirmed_at !== null) return 'skipped';
    // Cancelled by an unsubscribe before it was mailed (or a retry that came too late).
    if (request.expires_at !== null && request.expires_at <= now) return 'cancelled';
    if (await findCurrentSubscriber(db, request.email, request.store_code)) return 'already-subscribed';
    // Counted at its first attempt (no token minted yet): a retry after a failed send is the same mail.
    if (request.token_hash === null) {
      const mailed = await countHit(db, `newsletter:mailed:${mailboxKey(request.email)}`, config.newsletter.perEmail, now);
      if (mailed > config.newsletter.perEmail.max) return 'throttled';
    }
    const store = await getStore(db, request.store_code);
    if (!store) throw new Error(`unknown store ${request.store_code}`);
    const { token, hash } = newToken();
    // An unsubscribe (or a confirmation) that committed since the read above: no mail, no working link.
    const stored = await setRequestToken(
      db,
      { id: request.id, expiresAtRead: request.expires_at },
      hash,
      now + config.newsletter.confirmTokenTtlMs,
    );
    if (!stored) return 'cancelled';
    const recipient = { email: request.email, storeCode: request.store_code };
    const signer = unsubscribeSigner(await unsubscribeSecret(db, config.newsletter.unsubscribeSecret, now));
    const language: Language = isLanguage(request.language) ? request.language : 'et';
    const content = confirmationMail[language]({
      storeName: store.name,
      url: `${store.frontendUrl}${config.newsletter.confirmPath}?newsletterToken=${token}`,
      unsubscribeUrl: `${store.frontendUrl}${config.newsletter.unsubscribePath}?${unsubscribeQuery(signer, recipient)}`,
      hours: Math.round(config.newsletter.confirmTokenTtlMs / HOUR_MS),
    });
    await mailer.send({
      to: request.email,
      ...renderNewsletterMail(content),
      headers: unsubscribeHeaders(oneClickUnsubscribeUrl(config, signer, recipient)),
    });
    return 'sent';
  };
}
