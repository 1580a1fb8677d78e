import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../db/database.js';
import { authenticateOperator } from '../admin/index.js';
import type { CallerResolver } from '../catalogue/index.js';
import { contentCacheFor } from '../content/index.js';
import type { ReadMode } from './publishing.js';

// The HTTP side of reading content (blog, news, schedules): preview or public, and the caching
// (the content module's rule: shared-cacheable for guests and retail, never stored for the rest).

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
