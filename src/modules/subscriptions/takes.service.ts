import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { isUniqueViolation } from '../../db/unique-violation.js';
import type { Db } from '../../db/database.js';
import { conflict, invalidField, notFound } from '../../infra/domain-error.js';
import { MAIN_API_PAGING, type PageRequest } from '../../http/paging.js';
import type { Caller } from '../catalogue/index.js';
import type { Subscriber } from './subscriptions.service.js';
import { findPlan, ownSubscription, type PlanRow, type SubscriptionRow } from './subscriptions.repository.js';
import type { PlanKind, TakeKind } from './subscriptions.tables.js';
import {
  creditsUsed,
  heldCount,
  heldItemsPage,
  heldTake,
  insertTake,
  lockOwnSubscription,
  returnTake,
  takeableProduct,
} from './takes.repository.js';

// What a subscription gives. An audio credit plan gives one downloadable audiobook per credit, its
// plan's N credits each period (a trial is a period); credits left at a period's end are gone. An
// unlimited audio plan gives any downloadable audiobook. An e-book shelf plan holds at most N
// e-books at once; one taken off the shelf frees its place. Audiobooks stay with the subscription
// (in the downloads while it lasts, see accessibleTakes) and cannot be given back; a credit is
// never returned. Only a TRIAL or ACTIVE subscription inside its period gives something new (a
// cancelled one until its period's end). The subscription's row is locked first, so parallel takes
// count credits and the shelf one after the other.

const TAKE_KIND: Record<PlanKind, TakeKind> = { AUDIO_CREDITS: 'AUDIOBOOK', AUDIO_UNLIMITED: 'AUDIOBOOK', EBOOK_SHELF: 'EBOOK' };

/** Refuses a subscription that gives nothing new now. */
function assertGives(sub: SubscriptionRow, now: number): void {
  if (sub.status !== 'TRIAL' && sub.status !== 'ACTIVE') throw conflict('subscriptions.notActive', { status: sub.status });
  if (Number(sub.period_end) <= now) throw conflict('subscriptions.periodOver');
}

export async function takeProduct(db: Kysely<Database>, who: Subscriber, caller: Caller, id: number, productId: number, now: number) {
  await db
    .transaction()
    .execute(async (trx) => {
      const sub = await lockOwnSubscription(trx, who.clientAccountId, id);
      if (!sub) throw notFound('subscriptions.notFound', { id });
      assertGives(sub, now);
      const plan = (await findPlan(trx, Number(sub.plan_id)))!;
      const kind = TAKE_KIND[plan.kind];
      const product = await takeableProduct(trx, sub.store_code, caller, productId);
      if (!product) throw invalidField('productId', 'subscriptions.productNotFound', { id: productId });
      if (product.type !== kind || !product.download)
        throw invalidField('productId', kind === 'EBOOK' ? 'subscriptions.ebooksOnly' : 'subscriptions.audiobooksOnly');
      if (await heldTake(trx, id, productId)) throw conflict('subscriptions.alreadyTaken');
      if (plan.kind === 'AUDIO_CREDITS') {
        const credits = plan.credits_per_month ?? 0;
        if ((await creditsUsed(trx, id, sub.period_number)) >= credits) throw conflict('subscriptions.noCreditsLeft', { credits });
      }
      if (plan.kind === 'EBOOK_SHELF') {
        const size = plan.shelf_size ?? 0;
        if ((await heldCount(trx, id)) >= size) throw conflict('subscriptions.shelfFull', { size });
      }
      await insertTake(trx, sub, { productId, kind, usedCredit: plan.kind === 'AUDIO_CREDITS' }, now);
    })
    .catch((error: unknown) => {
      // The lock makes this unreachable in practice; the unique held_key is the last word.
      if (isUniqueViolation(error)) throw conflict('subscriptions.alreadyTaken');
      throw error;
    });
  return takesOf(db, who, id);
}

/** Takes an e-book off the shelf; an audiobook stays (its credit is spent). */
export async function giveBack(db: Kysely<Database>, who: Subscriber, id: number, productId: number, now: number) {
  await db.transaction().execute(async (trx) => {
    if (!(await lockOwnSubscription(trx, who.clientAccountId, id))) throw notFound('subscriptions.notFound', { id });
    const held = await heldTake(trx, id, productId);
    if (!held) throw notFound('subscriptions.notTaken', { id: productId });
    if (held.kind !== 'EBOOK') throw conflict('subscriptions.audiobookKept');
    await returnTake(trx, id, productId, now);
  });
  return takesOf(db, who, id);
}

/** The first page of a list, what POST and DELETE answer with. */
const FIRST_PAGE: PageRequest = { page: 1, perPage: MAIN_API_PAGING.defaultPerPage, offset: 0 };

/** The first page of what the caller's subscription holds, and what it still gives this period. */
export async function takesOf(db: Db, who: Subscriber, id: number) {
  return (await takesPage(db, who, id, FIRST_PAGE)).takes;
}

/** One page of what the caller's subscription holds (and how many it holds), and what it still gives this period. */
export async function takesPage(db: Db, who: Subscriber, id: number, page: PageRequest) {
  const sub = await ownSubscription(db, who.clientAccountId, id);
  if (!sub) throw notFound('subscriptions.notFound', { id });
  const plan = (await findPlan(db, Number(sub.plan_id)))!;
  const items = await heldItemsPage(db, id, page);
  const total = await heldCount(db, id);
  const takes = {
    subscriptionId: id,
    items: items.map((item) => ({
      id: Number(item.id),
      productId: Number(item.product_id),
      productCode: item.code,
      title: item.name,
      kind: item.kind,
      usedCredit: Boolean(item.used_credit),
      takenAt: new Date(Number(item.created_at)).toISOString(),
    })),
    creditsLeft: await creditsLeft(db, sub, plan),
    shelfFree: plan.kind === 'EBOOK_SHELF' ? Math.max(0, (plan.shelf_size ?? 0) - total) : null,
  };
  return { takes, total };
}

async function creditsLeft(db: Db, sub: SubscriptionRow, plan: PlanRow): Promise<number | null> {
  if (plan.kind !== 'AUDIO_CREDITS') return null;
  return Math.max(0, (plan.credits_per_month ?? 0) - (await creditsUsed(db, Number(sub.id), sub.period_number)));
}
