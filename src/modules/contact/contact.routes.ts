import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Db, DatabaseHandle } from '../../db/database.js';
import { optionalPrincipal } from '../../http/auth.js';
import { setCacheHeaders } from '../../http/http-cache.js';
import { requestStore } from '../../http/request-context.js';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../http/schemas.js';
import { activeShops } from '../catalogue/index.js';
import type { ContactSection } from './contact.config.js';
import { findStoreContact } from './contact.repository.js';
import { ContactBody, ContactSchema } from './contact.schemas.js';
import { contactMessageOf, countContactMessage, queueContactMessage } from './contact.service.js';

export interface ContactDeps {
  database: DatabaseHandle;
  /** profile's confirmedLoginEmailOf: only to that address does the acknowledgement copy the message. */
  confirmedEmailOf: (db: Db, clientAccountId: number) => Promise<string | null>;
  config: { contact: ContactSection; jobs: { maxAttempts: number } };
}

const tags = ['contact page'];
/** How long a shared cache or browser may keep the contact page (office data changes rarely). */
const CONTACT_MAX_AGE_SECONDS = 600;

/** The contact page: the store's office and shops, and the contact form. */
export const contactRoutes: FastifyPluginAsyncTypebox<ContactDeps> = async (app, { database, confirmedEmailOf, config }) => {
  const db = database.db;

  app.get(
    '/contact',
    {
      schema: {
        tags,
        summary: "The store's contact data (its office) and its active shops",
        headers: StoreRequestHeaders,
        response: { 200: success(ContactSchema), ...errors(...storeRouteErrors) },
      },
    },
    async (request, reply) => {
      const store = requestStore(request);
      const [office, shops] = await Promise.all([findStoreContact(db, store.code), activeShops(db, request.language)]);
      // The same for every caller: nothing in it depends on who asks. It does depend on the store and
      // (the shops' names) the language, which a shared cache must key on (Vary), or it hands one
      // store's or language's page to every caller.
      setCacheHeaders(reply, 'public', CONTACT_MAX_AGE_SECONDS);
      return { store: { code: store.code, name: store.name, ...office }, shops };
    },
  );

  app.post(
    '/contact',
    {
      schema: {
        tags,
        summary: "Sends a message to the store's office, and an acknowledgement to the sender",
        description:
          'Both mails go through the outbox (202: queued). The acknowledgement copies the name, subject and text only ' +
          "for a logged-in customer (optional bearer token; a bad one is a 401) writing from their account's confirmed " +
          'login email; to any other address it only says that the message arrived. Limited per client address and per sender email ' +
          '(CONTACT_RATE_LIMIT_PER_IP, CONTACT_RATE_LIMIT_PER_EMAIL; 429 with Retry-After). A typed address other than the ' +
          "customer's own gets at most CONTACT_ACK_PER_EMAIL acknowledgements (one a day), whoever sends: past it the office " +
          'still gets the message (202). A message with the hidden `website` field filled in is answered the same and not sent. The same ' +
          'message again within 5 minutes (a double click, a retry) is answered the same and not sent again.',
        headers: StoreRequestHeaders,
        body: ContactBody,
        security: [{}, { bearer: [] }],
        response: { 202: success(Type.Object({})), ...errors(...storeRouteErrors, 401, 413, 415, 422, 429) },
      },
    },
    async (request, reply) => {
      const store = requestStore(request);
      const counted = { ip: request.ip, now: request.actionTime, body: request.body };
      await countContactMessage(db, config.contact, counted);
      // Counted first: a bad token is a 401 that still counts against the limits.
      const principal = await optionalPrincipal(db, request);
      const ownEmail = principal === undefined ? null : await confirmedEmailOf(db, principal.clientAccountId);
      const message = contactMessageOf({ ...counted, storeCode: store.code, language: request.language, ownEmail });
      if (message !== undefined) {
        await db.transaction().execute((trx) => queueContactMessage(trx, message, config.contact, config.jobs.maxAttempts, counted.now));
      }
      reply.header('Cache-Control', 'no-store');
      return reply.code(202).send({});
    },
  );
};
