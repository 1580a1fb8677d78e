import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../db/database.js';
import { authenticateOperator } from '../admin/index.js';
import type { Caller, CallerResolver } from '../catalogue/index.js';
import { CONTENT_MAX_AGE_SECONDS, contentCacheFor } from '../content/index.js';

// The HTTP side of reading content (blog, news): preview or public, and the caching (the content
// module's rule: public for guests, private for retail customers, never stored for the rest).

/** Who reads: an operator's preview, or the public as a caller of this kind. */
export type Reader = { mode: 'preview' } | { mode: 'public'; kind: Caller['kind'] };

/**
 * `?preview=1` with an operator API key: drafts and items outside their window show (401 without a
 * valid key). Otherwise the caller is resolved as in the catalogue (a bad client token is a 401).
 */
export async function readerOf(request: FastifyRequest, db: Db, callerOf: CallerResolver, preview: string | undefined): Promise<Reader> {
  if (preview === '1' || preview === 'true') {
    await authenticateOperator(db, request);
    return { mode: 'preview' };
  }
  return { mode: 'public', kind: (await callerOf(request)).kind };
}

/**
 * The answer's cache headers: a preview is never stored; a public answer by the content's rule,
 * no longer than until `changesAt` (the next start or end of a window among what it weighs).
 */
export function setReadCache(reply: FastifyReply, reader: Reader, now: number, changesAt = Infinity): void {
  if (reader.mode === 'preview') {
    reply.header('Cache-Control', 'no-store');
    return;
  }
  const untilChange = Math.max(0, Math.floor((changesAt - now) / 1000));
  contentCacheFor(reply, reader.kind, Math.min(CONTENT_MAX_AGE_SECONDS, untilChange));
}
