import type { EnvReader } from '../../infra/env.js';

/** The `downloads` section: how long a signed link lives, what signs it, and how many downloads an entitlement has. */
export interface DownloadsSection {
  /** DOWNLOAD_LIMIT: downloads per entitlement (a bought product in an order, or a subscription take), every format together. */
  limit: number;
  /** DOWNLOAD_LINK_TTL: how long a link from GET /download/{id}/link works. */
  linkTtlMs: number;
  /** DOWNLOAD_LINK_BUDGET: the bytes one link serves, in times its file's size (ranges and retries together). */
  linkBudget: number;
  /** DOWNLOAD_ITEMS_BATCH: holders given a new file's list item per statement (the job after an upload). */
  itemsBatch: number;
  /** DOWNLOAD_LINK_SECRET; when unset the service makes one and keeps it in the database. */
  linkSecret: string | undefined;
}

export function readDownloadsConfig(env: EnvReader): DownloadsSection {
  const linkSecret = env.optional('DOWNLOAD_LINK_SECRET');
  if (linkSecret !== undefined && linkSecret.length < 32) env.problem('DOWNLOAD_LINK_SECRET must be at least 32 characters');
  return {
    limit: env.integer('DOWNLOAD_LIMIT', 10, 1, 10_000),
    linkTtlMs: env.duration('DOWNLOAD_LINK_TTL', '5m'),
    linkBudget: env.integer('DOWNLOAD_LINK_BUDGET', 3, 1, 100),
    itemsBatch: env.integer('DOWNLOAD_ITEMS_BATCH', 1000, 1, 100_000),
    linkSecret,
  };
}
