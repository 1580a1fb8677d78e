import { isPublishedAt, type PublishedFacts } from '../../infra/publishing.js';

// An operator's preview sees drafts and items outside their window too; the public sees what
// infra/publishing.ts says. Every item an answer weighs notes its window's edges to come, so the
// answer says how long it holds: a banner that ends at midnight is not cached past midnight.

/** Whom a read is for: the public at `now`, or an operator's preview (which sees everything). */
export interface Audience {
  now: number;
  preview: boolean;
  /** The earliest instant after `now` at which something the answer weighed starts or ends (Infinity: none). */
  changesAt: number;
}

/** The audience of a read at `now`, with no change noted yet. */
export function audienceAt(now: number, preview: boolean): Audience {
  return { now, preview, changesAt: Infinity };
}

/** Notes the instants after `now` at which the answer changes (a window's start or end; null: open). */
export function noteChanges(audience: Audience, ...edges: Array<number | string | null | undefined>): void {
  for (const edge of edges) {
    if (edge === null || edge === undefined) continue;
    const at = Number(edge);
    if (at > audience.now && at < audience.changesAt) audience.changesAt = at;
  }
}

export function isShown(item: PublishedFacts, audience: Audience): boolean {
  if (audience.preview) return true;
  noteChanges(audience, item.visible_from, item.visible_to);
  return isPublishedAt(item, audience.now);
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
