import type { Kysely } from 'kysely';
import { inTransactionRetryingOnDeadlock } from '../../db/deadlock.js';
import type { Database } from '../../db/schema.js';
import type { Clock } from '../../infra/clock.js';
import { enqueueJob } from '../../infra/jobs/queue.js';
import { PermanentJobFailure } from '../../infra/jobs/refused-for-good.js';
import type { JobHandler } from '../../infra/jobs/worker.js';
import type { Db } from '../../db/database.js';
import { refreshProductDocuments } from '../catalogue/index.js';
import { stampCampaignProducts } from './campaigns.repository.js';
import { chunks } from './write.js';

// A campaign's prices are in the data export's product items (discountPrice), which a partner
// finds by product.updated_at (`updatedFrom`): the products a campaign line prices before and after
// are stamped. Stamped in the line's own transaction, each product's row stayed locked from its
// stamp to the line's commit: 4 s for 20,000 prices, while a stock or price write or a checkout of
// the first product waited (test/import/campaign-stamp-locks.test.ts). The line queues these jobs
// instead, in its transaction (so they exist if and only if the campaign's prices committed), of at
// most STAMP_BATCH products each; a job stamps its products in a short transaction of its own, with
// the time it runs, never moving a stamp back, so a job run twice (a retry, a worker that lost its
// claim) only stamps them later again. A partner that read by updatedFrom between the line's commit
// and the job finds them after it: the stamp is later than its read (or its transaction was open
// then, which holds the export's cut back, settled-cut.ts). Until a worker runs the jobs (WORKER=off
// and no `storefront worker`) the new prices show in the export without their products being found.
// On PostgreSQL a job also rebuilds its products' documents, whose campaign prices (`cp`) the
// campaign's writes leave alone there (migration 2026_12_13_1500): this release's product pages read
// campaign_price, those of the release before read `cp`.

export const CAMPAIGN_STAMPS_JOB = 'catalogue-import.campaign-stamps';
/** Products a job stamps, in one transaction: one UPDATE of at most as many rows. */
export const STAMP_BATCH = 1000;
const ATTEMPTS = 10;

/** Queues the stamps of these products (any order, repeats allowed), in the caller's transaction: the campaign line's. */
export async function queueCampaignStamps(trx: Db, productIds: readonly number[], now: number): Promise<void> {
  // Sorted and split, so the jobs of one line hold disjoint products, each a run of ids.
  const sorted = [...new Set(productIds)].sort((a, b) => a - b);
  for (const part of chunks(sorted, STAMP_BATCH)) {
    await enqueueJob(trx, { type: CAMPAIGN_STAMPS_JOB, payload: { productIds: part } }, { maxAttempts: ATTEMPTS, now });
  }
}

export function campaignStampsHandler(deps: { db: Kysely<Database>; clock: Clock }): JobHandler {
  const { db, clock } = deps;
  return async (job: { productIds?: unknown }, { log }) => {
    const ids = job.productIds;
    if (!Array.isArray(ids) || ids.length > STAMP_BATCH || !ids.every((id) => Number.isSafeInteger(id))) {
      throw new PermanentJobFailure('the payload is not {"productIds": [up to 1000 product ids]}');
    }
    const stamped = await inTransactionRetryingOnDeadlock(db, log, async (trx) =>
      // The time read in the transaction, after its start: the export's cut holds back to that start.
      stampCampaignProducts(trx, ids as number[], clock.now()),
    );
    // Their documents' campaign prices, which the campaign's writes leave alone on PostgreSQL: after the
    // stamps' commit, in a transaction of its own. In theirs the products' rows stayed locked through the
    // rebuilds (~0.5 s a job), and while a rebuild waited for a writer of one product's document (its
    // refresh lock), a stock write or a checkout of any of the job's products waited too. A failure
    // retries the job: stamped later again, rebuilt again.
    await inTransactionRetryingOnDeadlock(db, log, (trx) => refreshProductDocuments(trx, ids as number[]));
    return `stamped ${stamped}`;
  };
}
