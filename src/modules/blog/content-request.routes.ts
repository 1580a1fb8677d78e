import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../db/database.js';
import { authenticateOperator } from '../admin/index.js';
import type { CallerResolver } from '../catalogue/index.js';
import type { ReadMode } from './publishing.js';

// The HTTP side of reading content (blog, news, schedules): preview or public, and the caching.
// Content does not depend on prices, so retail customers get the same shared-cacheable answer as
// guests (the catalogue's retail answers are private because of their discounts). Business and
// wholesale answers are never stored, as in the catalogue.

export const CONTENT_MAX_AGE_SECONDS = 600;

/**
 * `?preview=1` with an operator API key: drafts and items outside their window show, and the
 * answer is never cached (401 without a valid key). Otherwise the caller is resolved as in the
 * catalogue (a bad client token is a 401) and the answer gets its cache headers.
 */
export async function readModeOf(
  request: FastifyRequest,
  reply: FastifyReply,
  db: Db,
  callerOf: CallerResolver,
  preview: string | undefined,
): Promise<ReadMode> {
  if (preview === '1' || preview === 'true') {
    await authenticateOperator(db, request);
    reply.header('Cache-Control', 'no-store');
    return 'preview';
  }
  const caller = await callerOf(request);
  contentCacheFor(reply, caller.kind);
  return 'public';
}

/** Cache-Control for content: shared-cacheable for guests and retail, never stored for the rest. */
export function contentCacheFor(reply: FastifyReply, kind: string, maxAgeSeconds = CONTENT_MAX_AGE_SECONDS): void {
  if (kind !== 'GUEST' && kind !== 'SIMPLE') {
    reply.header('Cache-Control', 'no-store');
    return;
  }
  reply.header('Cache-Control', `public, max-age=${maxAgeSeconds}`);
  // Added to what is there: with several allowed origins the CORS plugin has set `Vary: Origin`.
  const current = reply.getHeader('vary');
  const present = (Array.isArray(current) ? current.join(',') : String(current ?? '')).split(',').map((name) => name.trim());
  const names = [...present.filter((name) => name !== ''), ...VARY];
  reply.header('Vary', [...new Map(names.map((name) => [name.toLowerCase(), name])).values()].join(', '));
}

const VARY = ['store', 'x-app-language', 'Authorization', 'Accept-Encoding'];
