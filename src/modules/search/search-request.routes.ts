import type { FastifyInstance, FastifyRequest } from 'fastify';
import { LIST_PARAMETERS } from './search.schemas.js';
import { isSearchTooSlow, isSearchUnavailable } from './search.errors.js';

// The HTTP side that search's route files share.

/** Comma-separated list parameters become lists before validation: `type=BOOK,EBOOK` is `type=BOOK&type=EBOOK`. */
export async function splitListParameters(request: FastifyRequest): Promise<void> {
  const query = request.query as Record<string, unknown> | undefined;
  if (!query) return;
  for (const name of LIST_PARAMETERS) {
    const value = query[name];
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [value];
    query[name] = values.flatMap((item) => (typeof item === 'string' ? item.split(',') : [item])).filter((item) => item !== '');
  }
}

/**
 * The 503 of an unavailable index says so (X-Search-Available: 0) and must not be stored by any
 * cache; the error handler adds its Retry-After. Nor may the 503 of a search past its time budget.
 */
export function markUnavailableAnswers(app: FastifyInstance): void {
  app.addHook('onError', async (_request, reply, error) => {
    if (isSearchUnavailable(error)) reply.header('X-Search-Available', '0').header('Cache-Control', 'no-store');
    if (isSearchTooSlow(error)) reply.header('Cache-Control', 'no-store');
  });
}
