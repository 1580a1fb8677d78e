import type { FastifyInstance, FastifyRequest } from 'fastify';
import { startBudget, type QueryBudget } from '../../db/query-budget.js';
import { badRequest, DomainError } from '../../infra/domain-error.js';
import { addressKey } from '../../infra/address-key.js';
import { tokenBuckets } from '../../infra/token-bucket.js';
import { isOneLetterWordList } from './query-text.js';
import type { SearchSection } from './search.config.js';

// What keeps one client from stalling the process through search: a limit per address on the work
// it causes, a time budget on each request's reads, and an early 400 for text that can only cost.

const budgets = new WeakMap<FastifyRequest, QueryBudget>();
/**
 * A refused request (400: a one-letter word list, a bad parameter) costs this many tokens: it is
 * cheap to refuse, but thousands a second are not, and no shopper's front-end sends them.
 */
const REFUSED_COST = 20;
/**
 * A 429 is sent after this pause. Waiting costs the event loop nothing (a timer), and a client that
 * ignores Retry-After and hammers on a few connections then gets a few answers a second, not thousands.
 */
const LIMITED_DELAY_MS = 250;

/**
 * On every route of the plugin it is called in: a token bucket per client address (an IPv6 /64)
 * from which each request takes 1 token when it starts and, when it ends, the milliseconds its
 * search reads held the event loop (SQLite; a PostgreSQL read waits without blocking it, and its
 * statement_timeout bounds it), or REFUSED_COST for a 400; an empty bucket is a 429 with Retry-After
 * before anything else runs.
 *
 * The buckets live in this process's memory, on purpose: what they protect is this process's event
 * loop (better-sqlite3 reads run on it), so the budget belongs to the process, and N processes
 * rightly give an address N times the work. A counter in the database would add a write to every
 * search, more than a cached search costs. The default (3,000 ms per 10 s) lets one address keep
 * under a third of a process busy: thousands of shoppers behind one office or mobile-operator NAT
 * typing into autocomplete (a cached answer counts 1), but not four connections hammering misses.
 */
export function registerSearchGuards(app: FastifyInstance, section: SearchSection): void {
  const buckets = tokenBuckets(section.perAddress);
  app.addHook('onRequest', async (request) => {
    const wait = buckets.take(addressKey(request.ip), 1, request.actionTime);
    if (wait > 0) {
      await new Promise((resolve) => setTimeout(resolve, LIMITED_DELAY_MS));
      throw new DomainError('rate-limited', 'error.tooManyRequests', { seconds: wait }, wait);
    }
    budgets.set(request, startBudget(section.timeBudgetMs));
  });
  app.addHook('onResponse', async (request, reply) => {
    const budget = budgets.get(request);
    if (budget === undefined) return; // limited: charged nothing more
    const cost = Math.floor(budget.blockedMs) + (reply.statusCode === 400 ? REFUSED_COST : 0);
    if (cost > 0) buckets.charge(addressKey(request.ip), cost, request.actionTime);
  });
}

/** The time budget of the request's search reads (started when the request came in). */
export function budgetOf(request: FastifyRequest): QueryBudget | undefined {
  return budgets.get(request);
}

/** A 400 for a text of one-letter words only (`a b c d e f g h`): no shopper types it, and it can only cost. */
export function refuseOneLetterWordLists(...texts: Array<string | undefined>): void {
  for (const text of texts) {
    if (isOneLetterWordList(text)) throw badRequest('search.oneLetterWords', { text: text!.trim().slice(0, 40) });
  }
}
