import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import { isLanguage } from '../../i18n/index.js';
import { systemClock, type Clock } from '../../infra/clock.js';
import { enqueueJob } from '../../infra/jobs/queue.js';
import type { JobHandler } from '../../infra/jobs/worker.js';
import type { Logger } from '../../infra/logger.js';
import type { Mailer } from '../../infra/mail/mailer.js';
import { repeatOneAtATime } from '../../infra/repeat.js';
import { lockClientAccountIfLive } from '../client-account-lock/index.js';
import { clientAccountCaller, type Catalogue, type CatalogueContext, type ProductCard } from '../catalogue/index.js';
import { newsletterUnsubscribeHeaders, type NewsletterConfig } from '../newsletter/index.js';
import { getStore, type StoreSettings } from '../store/index.js';
import type { WishlistSection } from './wishlist.config.js';
import { wishlistOfferMail } from './wishlist.mails.js';
import { claimOfferMail, lastOfferMailAt, offerItems, productNames, rememberPrices, type WishlistOwner } from './wishlist.repository.js';
import { priceCents } from './wishlist.service.js';

// Wishlist offers: the worker's scan mails a client who turned them on when products on their
// wishlist cost them less than the shop remembers. Each item remembers a price (the client's when
// it was added); the scan prices the client's items exactly as GET /wishlist shows them to the client
// (the catalogue's cards: its visibility rule and pricing's price for the caller). A price above the
// remembered one raises it silently, so a sale that ends and comes back is a new offer; one lower by
// at least WISHLIST_OFFER_MIN_DROP_PERCENT, of a product the client sees and may order, is an offer.
// An item with no remembered price (from before) gets one and tells nothing.
//
// A client's offers are claimed by one conditional upsert of its wishlist_offer_mail row (at most one
// mail per WISHLIST_OFFER_MAIL_INTERVAL) that also lowers the told items' remembered prices and
// queues the one mail in the same transaction: two scans racing, in one process or several, queue
// one mail. An offer found within the interval is left as it is and told by the first mail after it.
//
// Who may be mailed is profile's rule (preferences, the EMAIL consent, a live account with a confirmed
// login email); the worker hands it in (OfferRecipients), as it hands back-in-stock ConfirmedEmailOf,
// and the mail job asks it again when it sends.

/** A client account that may be mailed its offers (profile's OfferRecipient). */
export interface OfferRecipient {
  clientAccountId: number;
  storeCode: string;
  email: string;
  language: string;
}

/** Profile's wishlistOfferRecipients and wishlistOfferRecipient, which the worker hands in. */
export interface OfferRecipients {
  /**
   * Of the next `limit` accounts that turned the mails on, after the given id, those that may be mailed
   * (a keyset page); `next` is where the next page starts, null after the last.
   */
  page(db: Db, afterClientAccountId: number, limit: number): Promise<{ recipients: OfferRecipient[]; next: number | null }>;
  /** The account if it may be mailed now. */
  one(db: Db, clientAccountId: number): Promise<OfferRecipient | undefined>;
}

export const WISHLIST_OFFER_MAIL_JOB = 'wishlist.offer-mail';
const MAIL_ATTEMPTS = 8;
const PAGE = 200;
/** The most products one mail tells of (the biggest drops); the rest wait for the next mail. */
export const MAX_OFFERS_PER_MAIL = 10;

export interface OfferScanDeps {
  db: Kysely<Database>;
  /** The worker's catalogue: the cards, visibility and prices GET /wishlist shows. */
  catalogue: Catalogue;
  config: Pick<WishlistSection, 'offerMinDropPercent' | 'offerMailIntervalMs'>;
  recipients: Pick<OfferRecipients, 'page'>;
}

/** A product the mail tells of: the remembered price and the client's price now, in cents. */
type Offer = { productId: number; oldCents: number; newCents: number };

/** The mail job: whom, where, and the offers claimed for it. */
type OfferMailJob = { clientAccountId: number; products: Offer[] };

/** One scan over every account that may be mailed; answers how many mails it queued. */
export async function scanWishlistOffers(deps: OfferScanDeps, now: number): Promise<number> {
  let queued = 0;
  let after = 0;
  // The stores' settings, read once per scan (two stores, thousands of clients).
  const stores = new Map<string, Promise<StoreSettings | undefined>>();
  const storeOf = (code: string) => stores.get(code) ?? stores.set(code, getStore(deps.db, code)).get(code)!;
  for (;;) {
    const { recipients, next } = await deps.recipients.page(deps.db, after, PAGE);
    for (const recipient of recipients) if (await scanClient(deps, storeOf, recipient, now)) queued += 1;
    if (next === null) return queued;
    after = next;
  }
}

/** Whether `card` is an offer against `rememberedCents`: lower by at least the percent, and orderable. */
function isOffer(card: ProductCard, rememberedCents: number, minDropPercent: number): boolean {
  // Orderable on the web as the catalogue tells it (search's availability `web`).
  if (card.availability !== 'AVAILABLE') return false;
  return (rememberedCents - priceCents(card)) * 100 >= rememberedCents * minDropPercent;
}

async function scanClient(
  deps: OfferScanDeps,
  storeOf: (code: string) => Promise<StoreSettings | undefined>,
  recipient: OfferRecipient,
  now: number,
): Promise<boolean> {
  const { db, config } = deps;
  const owner: WishlistOwner = { clientAccountId: recipient.clientAccountId, storeCode: recipient.storeCode };
  const items = await offerItems(db, owner);
  if (items.length === 0) return false;
  const caller = await clientAccountCaller(db, owner.clientAccountId);
  const store = await storeOf(owner.storeCode);
  if (!caller || !store) return false;
  const context: CatalogueContext = { caller, store, language: isLanguage(recipient.language) ? recipient.language : 'et', now };
  // Only the products the client sees: a hidden one keeps its remembered price.
  const cards = new Map(
    (
      await deps.catalogue.cards(
        context,
        items.map((item) => item.productId),
      )
    ).map((card) => [card.id, card]),
  );
  const higher: Array<{ productId: number; cents: number }> = [];
  const offers: Offer[] = [];
  for (const item of items) {
    const card = cards.get(item.productId);
    if (!card) continue;
    const cents = priceCents(card);
    if (item.rememberedCents === null || cents > item.rememberedCents) higher.push({ productId: item.productId, cents });
    else if (isOffer(card, item.rememberedCents, config.offerMinDropPercent))
      offers.push({ productId: item.productId, oldCents: item.rememberedCents, newCents: cents });
  }
  if (higher.length > 0) await db.transaction().execute((trx) => rememberPrices(trx, owner, 'higher', higher));
  if (offers.length === 0) return false;
  // Within the interval the offers wait as they are (read first: most scans of a client end here).
  const last = await lastOfferMailAt(db, owner.clientAccountId);
  if (last !== undefined && last > now - config.offerMailIntervalMs) return false;
  const told = offers
    .sort((a, b) => b.oldCents * a.newCents - a.oldCents * b.newCents || a.productId - b.productId)
    .slice(0, MAX_OFFERS_PER_MAIL);
  return db.transaction().execute(async (trx) => {
    // The client account's lock first, as every writer of the client's data takes it: an erasure that
    // committed since the page was read deleted the items and the mail row, which this would write again.
    if (!(await lockClientAccountIfLive(trx, owner.clientAccountId))) return false;
    if (!(await claimOfferMail(trx, owner.clientAccountId, now, config.offerMailIntervalMs))) return false;
    await rememberPrices(
      trx,
      owner,
      'told',
      told.map((offer) => ({ productId: offer.productId, cents: offer.newCents })),
    );
    const payload: OfferMailJob = { clientAccountId: owner.clientAccountId, products: told };
    await enqueueJob(trx, { type: WISHLIST_OFFER_MAIL_JOB, payload }, { maxAttempts: MAIL_ATTEMPTS, now });
    return true;
  });
}

/** Runs the scan every interval until stopped; a failure is logged and the next scan tries again. */
export function scheduleWishlistOfferScan(
  scan: (now: number) => Promise<number>,
  log: Logger,
  intervalMs: number,
  clock: Clock = systemClock,
): { stop(): Promise<void> } {
  // One scan at a time in this process; another process's scan is harmless (see above).
  return repeatOneAtATime(
    () =>
      scan(clock.now()).then(
        (queued) => queued > 0 && log.info({ queued }, 'wishlist offer mails queued'),
        (err: unknown) => log.error({ err }, 'wishlist offer scan failed'),
      ),
    intervalMs,
  );
}

export interface OfferMailDeps {
  db: Kysely<Database>;
  mailer: Mailer;
  config: Pick<NewsletterConfig, 'newsletter' | 'orders' | 'basePath'> & {
    wishlist: Pick<WishlistSection, 'wishlistPath' | 'preferencesPath'>;
  };
  recipients: Pick<OfferRecipients, 'one'>;
  clock?: Clock;
}

/**
 * Sends a client's offer mail, rendered when sent: to the account's login email in its language,
 * the products' names now, the prices the scan claimed. A client who may no longer be mailed
 * (consent withdrawn, the offers or the email channel turned off, the account erased) gets nothing.
 * A marketing mail: it carries the newsletter's List-Unsubscribe headers.
 */
export function wishlistOfferMailHandler(deps: OfferMailDeps): JobHandler {
  const clock = deps.clock ?? systemClock;
  return async (job: OfferMailJob) => {
    const recipient = await deps.recipients.one(deps.db, job.clientAccountId);
    if (!recipient) return 'skipped';
    const names = await productNames(
      deps.db,
      job.products.map((offer) => offer.productId),
    );
    const store = await getStore(deps.db, recipient.storeCode);
    const frontend = store?.frontendUrl ?? '';
    const products = job.products.flatMap((offer) => {
      const name = names.get(offer.productId);
      return name === undefined
        ? []
        : [{ name, oldCents: offer.oldCents, newCents: offer.newCents, url: `${frontend}/product/${offer.productId}` }];
    });
    if (products.length === 0) return 'skipped';
    const mail = wishlistOfferMail({
      language: recipient.language,
      storeName: store?.name ?? recipient.storeCode,
      products,
      wishlistUrl: `${frontend}${deps.config.wishlist.wishlistPath}`,
      preferencesUrl: `${frontend}${deps.config.wishlist.preferencesPath}`,
    });
    const headers = await newsletterUnsubscribeHeaders(
      deps.db,
      deps.config,
      { email: recipient.email, storeCode: recipient.storeCode },
      clock.now(),
    );
    await deps.mailer.send({ to: recipient.email, ...mail, headers });
    return 'sent';
  };
}
