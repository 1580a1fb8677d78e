import type { FastifyInstance, FastifySchema } from 'fastify';
import { HttpError } from '../../http/errors.js';
import { guestToken, type BasketHttp } from './basket-request.routes.js';
import { mergeGuestInto, mergeMessages, type MergeNews } from './merge.service.js';

/** POST /basket/merge: the guest basket of the basket-token header moves into the bearer token's client's basket. */
export async function mergeRoute(app: FastifyInstance, { http, schema }: { http: BasketHttp; schema: FastifySchema }): Promise<void> {
  app.post(
    '/basket/merge',
    {
      schema: {
        ...schema,
        summary: "Moves the basket-token header's guest basket into the logged-in client's basket (quantities added, then capped)",
      },
    },
    async (request, reply) => {
      const { context, owner } = await http.contextOf(request);
      if (owner.kind !== 'client' || context.caller.clientAccountId === null) {
        throw new HttpError(401, 'auth.unauthorized', {}, { 'WWW-Authenticate': 'Bearer realm="storefront"' });
      }
      const token = guestToken(request);
      let news: MergeNews | undefined;
      const answer = await http.write(request, reply, async (trx, ctx, basket, queries) => {
        if (token === undefined) return basket;
        const merged = await mergeGuestInto(trx, basket, token, ctx.now, queries.products);
        news = merged.news;
        return merged.basket;
      });
      const messages = news && mergeMessages(news, request.language);
      return messages ? { ...answer, messages } : answer;
    },
  );
}
