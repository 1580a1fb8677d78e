import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { DatabaseHandle } from '../../db/database.js';
import { requestStore } from '../../http/request-context.js';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../http/schemas.js';
import { addressKey } from '../../infra/address-key.js';
import { consumeRateLimit } from '../../infra/rate-limit.js';
import type { NewsletterConfig } from './newsletter.config.js';
import { mailboxKey, refuseReservedEmail } from '../../infra/email-address.js';
import { ConfirmForm, Confirmed, Empty, SubscribeForm, UnsubscribeQuery } from './newsletter.schemas.js';
import { confirmSubscription, requestSubscription, unsubscribe } from './newsletter.service.js';
import { unsubscribeSecret, unsubscribeSigner } from './unsubscribe-link.js';
import { registerNoStore } from '../../http/http-cache.js';

export interface NewsletterDeps {
  database: DatabaseHandle;
  config: NewsletterConfig;
}

const tags = ['newsletter'];
const formErrors = errors(...storeRouteErrors, 413, 415, 422, 429);
// RFC 8058's POST is tiny: `List-Unsubscribe=One-Click`.
const FORM_BODY_LIMIT = 1024;

/** Newsletter subscription with double opt-in, and the signed one-click unsubscribe. */
export const newsletterRoutes: FastifyPluginAsyncTypebox<NewsletterDeps> = async (app, { database, config }) => {
  const db = database.db;
  // Counted before validation, so malformed requests count too.
  const limitPerIp = async (request: FastifyRequest) =>
    consumeRateLimit(db, `newsletter:ip:${addressKey(request.ip)}`, config.newsletter.perIp, request.actionTime);
  // Answers about someone's subscription are for them only.
  registerNoStore(app);

  app.post(
    '/newsletter/subscribe',
    {
      preValidation: limitPerIp,
      schema: {
        tags,
        summary:
          'Ask for a subscription: a confirmation link is mailed; nothing is subscribed until it is followed (the answer never tells whether the address is subscribed)',
        description: 'The same request again within 5 minutes (a double click, a retry) is answered the same and mails nothing more.',
        headers: StoreRequestHeaders,
        body: SubscribeForm,
        response: { 200: success(Empty), ...formErrors },
      },
    },
    async (request) => {
      const { email, language, source } = request.body;
      const now = request.actionTime;
      // The link could never arrive (refused here, not in requestSubscription: checkout's box asks too).
      refuseReservedEmail('email', email);
      // Each request mails a link: capped per address so nobody can flood an inbox.
      await consumeRateLimit(db, `newsletter:email:${mailboxKey(email)}`, config.newsletter.perEmail, now);
      // A form without a language choice subscribes in the language the shopper reads the store in.
      const input = { email, language: language ?? request.language, source: source ?? 'website', storeCode: requestStore(request).code };
      await db.transaction().execute((trx) => requestSubscription(trx, config, input, now));
      return {};
    },
  );

  app.post(
    '/newsletter/confirm',
    {
      preValidation: limitPerIp,
      schema: {
        tags,
        summary:
          'Follow the confirmation link: the subscription starts now. Followed again, the link answers as the first time while that subscription stands (400 for a link unknown or expired, or once the subscription was withdrawn)',
        headers: StoreRequestHeaders,
        body: ConfirmForm,
        response: { 200: success(Confirmed), ...formErrors },
      },
    },
    async (request) => {
      const confirmed = await db.transaction().execute((trx) => confirmSubscription(trx, request.body.token, request.actionTime));
      return { email: confirmed.email, store: confirmed.storeCode, language: confirmed.language };
    },
  );

  // A scope of its own, so that only this route takes form bodies (RFC 8058's one-click POST).
  await app.register(async (plain) => {
    const scope = plain.withTypeProvider<TypeBoxTypeProvider>();
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
      (_request, body, done) => {
        done(null, Object.fromEntries(new URLSearchParams(body as string)));
      },
    );
    // RFC 8058 §3.2: a mail client SHOULD send `List-Unsubscribe=One-Click` as multipart/form-data
    // (and MAY form-encode it). The signed query is what unsubscribes, so the parts are not read.
    scope.addContentTypeParser('multipart/form-data', { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT }, (_request, _body, done) => {
      done(null, {});
    });
    scope.post(
      '/newsletter/unsubscribe',
      {
        // Mail clients post the link as it is, without a store header: the store is in the signed link.
        config: { storeScoped: false },
        preValidation: limitPerIp,
        schema: {
          tags,
          summary:
            'Unsubscribe with a signed link (the List-Unsubscribe header of every marketing mail); RFC 8058 one-click: `List-Unsubscribe=One-Click` as multipart/form-data or form-encoded, a JSON body, or none',
          querystring: UnsubscribeQuery,
          response: { 200: success(Empty, 'plain'), ...errors(400, 403, 413, 415, 429, 500) },
        },
      },
      async (request) => {
        const { email, store, signature } = request.query;
        const now = request.actionTime;
        const signer = unsubscribeSigner(await unsubscribeSecret(db, config.newsletter.unsubscribeSecret, now));
        await db.transaction().execute((trx) => unsubscribe(trx, signer, { email, storeCode: store, signature }, now));
        return {};
      },
    );
  });
};
