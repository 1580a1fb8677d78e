import { isPublishedAt, type PublishedFacts } from '../../infra/publishing.js';

// An operator's preview sees drafts and items outside their window too; the public sees what
// infra/publishing.ts says.

/** Whom a read is for: the public at `now`, or an operator's preview (which sees everything). */
export interface Audience {
  now: number;
  preview: boolean;
}

export function isShown(item: PublishedFacts, { now, preview }: Audience): boolean {
  return preview || isPublishedAt(item, now);
}

/** Of several items under one key (a store's main pages, its menus), the one shown: the most recently started. */
export function currentOf<T extends PublishedFacts & { id: number }>(items: readonly T[], audience: Audience): T | undefined {
  let best: T | undefined;
  const start = (item: T) => (item.visible_from === null ? -Infinity : Number(item.visible_from));
  for (const item of items) {
    if (!isShown(item, audience)) continue;
    if (best === undefined || start(item) > start(best) || (start(item) === start(best) && item.id > best.id)) best = item;
  }
  return best;
}
