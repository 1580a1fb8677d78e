import type { Kysely } from 'kysely';
import { normaliseEmail } from '../../../infra/email-address.js';
import type { Db } from '../../../db/database.js';
import type { Database } from '../../../db/schema.js';
import { systemClock, type Clock } from '../../../infra/clock.js';
import { formatEuros, isLanguage, translate, type Language, type MessageKey } from '../../../i18n/index.js';
import { enqueueJob } from '../../../infra/jobs/queue.js';
import { deadIfRefused } from '../../../infra/jobs/refused-for-good.js';
import type { JobHandler } from '../../../infra/jobs/worker.js';
import type { Mailer } from '../../../infra/mail/mailer.js';
import { activeShops } from '../../catalogue/index.js';
import { getStore } from '../../store/index.js';
import { checksumSecret, orderChecksum } from '../checksum.js';
import { isDownloadLine } from '../download-lines.js';
import { isWithoutDelivery } from '../no-delivery.js';
import { frontendOrderPage } from '../order-links.js';
import { PAID_STATUSES } from '../order-history.repository.js';
import type { OrdersSection } from '../orders.config.js';
import { findOrder, linesOf, type LineRow, type OrderRow } from './processing.repository.js';
import { escapeHtml, linkUrl } from '../../../infra/html.js';
import { endOfLocalDay, lastLocalDay, localTime } from '../../../infra/shop-time.js';
import { giftReceiverOf, recordGiftKeyEnd } from '../entitlements.repository.js';
import { giftKeys } from '../gift-key.js';

// The order-confirmation mail: to the buyer (billing email), and to the receiver (shipping email)
// when that is another address. Queued in the outbox by the processing transaction, so it goes
// out once per processed order; rendered when sent, from the order as stored, in its language.
// The buyer's mail links to the order's page on the front-end with the order's checksum: a guest has
// no other way back to the order. The receiver's does not: the checksum reads the whole order (the
// buyer's address, what was paid) and repeats it into a basket, which is the buyer's to hand on.
// The link is made when the mail is sent, so no checksum waits in the outbox. E-books and audiobooks
// bought for someone else are theirs too: the receiver's mail links to the front-end's page of them
// (GIFT_DOWNLOADS_PATH) with a key of their own (gift-key.ts: those files and nothing else of the order,
// until GIFT_DOWNLOAD_TTL after processing), and the buyer's says the receiver has it.

export const ORDER_MAIL_JOB = 'order.mail';
/** How often each order mail (confirmation, cancellation, refund) is tried before it is given up. */
export const ORDER_MAIL_ATTEMPTS = 8;

/** What an order mail's handler reads and sends with. */
export interface OrderMailDeps {
  db: Kysely<Database>;
  mailer: Mailer;
  config: Pick<OrdersSection, 'checksumSecret' | 'orderPagePath'> & Partial<Pick<OrdersSection, 'giftDownloadsPath' | 'giftDownloadTtlMs'>>;
  /** The runner's (the system's when not given): the time a mail is sent at, read once per mail. */
  clock?: Clock;
}

export type OrderMailRecipient = 'buyer' | 'receiver';

export interface OrderMailJob {
  orderId: number;
  recipient: OrderMailRecipient;
}

/** Who an order's mail goes to: the buyer, and the receiver when the shipping email is another address. */
export function orderMailRecipients(order: Pick<OrderRow, 'billing_email' | 'shipping_email'>): OrderMailRecipient[] {
  return normaliseEmail(order.shipping_email) === normaliseEmail(order.billing_email) ? ['buyer'] : ['buyer', 'receiver'];
}

/** Queues the confirmation to the buyer, and to the receiver when the shipping email is another. */
export async function queueOrderMails(trx: Db, order: Pick<OrderRow, 'id' | 'billing_email' | 'shipping_email'>, now: number) {
  for (const recipient of orderMailRecipients(order))
    await enqueueJob(trx, { type: ORDER_MAIL_JOB, payload: { orderId: order.id, recipient } }, { maxAttempts: ORDER_MAIL_ATTEMPTS, now });
}

export function orderMailHandler(deps: OrderMailDeps): JobHandler {
  const clock = deps.clock ?? systemClock;
  return async (job: OrderMailJob) => {
    const now = clock.now();
    const order = await findOrder(deps.db, job.orderId);
    // An order given up before its confirmation went (a full refund while the mail server refused)
    // is not confirmed after its buyer was told it is cancelled: the pickup and feedback mails ask the same.
    if (!order?.code || !PAID_STATUSES.includes(order.status)) return 'skipped';
    const lines = await linesOf(deps.db, [order.id]);
    const to = job.recipient === 'receiver' ? order.shipping_email : order.billing_email;
    const { storeName, orderPageUrl } = await storeOfMail(deps, order, now);
    const gift = await giftOfMail(deps, order, now);
    const facts = {
      recipient: job.recipient,
      storeName,
      orderPageUrl: job.recipient === 'buyer' ? orderPageUrl : null,
      shopName: (await orderPickupShop(deps.db, order))?.name ?? null,
      gift: gift === undefined ? null : { ...gift, pageUrl: job.recipient === 'receiver' ? gift.pageUrl : null },
    };
    const sending = deps.mailer.send({ to, ...confirmationMail(order, lines, facts) });
    // The buyer's receipt, and a guest's only way back to the order: refused, the operators are to
    // reach the buyer another way (a receiver's copy is only news, ended as refused).
    if (job.recipient !== 'buyer') await sending;
    else
      await deadIfRefused(
        sending,
        `order ${order.code}'s confirmation reached no one: its buyer's address does not exist; reach them another way`,
      );
    return 'sent';
  };
}

/**
 * The store an order mail names and the buyer's link to the order's page there, with a checksum made
 * `now` (the mail's time). A store row gone (none is ever deleted) still gets the buyer their mail, without the page it cannot name.
 */
export async function storeOfMail(deps: Omit<OrderMailDeps, 'mailer'>, order: OrderRow, now: number): Promise<StoreOfMail> {
  const store = await getStore(deps.db, order.store_code);
  if (!store) return { storeName: order.store_code, orderPageUrl: null };
  const checksum = orderChecksum(await checksumSecret(deps.db, deps.config.checksumSecret, now));
  return { storeName: store.name, orderPageUrl: frontendOrderPage(store.frontendUrl, deps.config.orderPagePath, checksum, order) };
}

/**
 * The receiver's page of the downloads bought for them, with a key made now that ends with the day GIFT_DOWNLOAD_TTL
 * after the order was processed (so a mail sent again carries the same end); undefined for an order bought for nobody
 * else, or without downloads, or processed before receivers had keys (its receiver was told the buyer hands them on).
 */
async function giftOfMail(deps: Omit<OrderMailDeps, 'mailer'>, order: OrderRow, now: number): Promise<GiftOfMail | undefined> {
  const { giftDownloadsPath, giftDownloadTtlMs } = deps.config;
  if (giftDownloadsPath === undefined || giftDownloadTtlMs === undefined) return undefined;
  const receiver = await giftReceiverOf(deps.db, order.id);
  const store = receiver === undefined ? undefined : await getStore(deps.db, order.store_code);
  if (receiver === undefined || store === undefined) return undefined;
  // To the end of the shop's day GIFT_DOWNLOAD_TTL after processing: the mail names a day, and a key ending at
  // the processing's time of day said "ended" on the day the mail said it still worked (as gift cards end).
  const expiresAt = endOfLocalDay(localTime(receiver.createdAt + giftDownloadTtlMs).date);
  await recordGiftKeyEnd(deps.db, order.id, expiresAt);
  const key = giftKeys(await checksumSecret(deps.db, deps.config.checksumSecret, now)).of({ orderId: order.id, expiresAt });
  const pageUrl = `${store.frontendUrl}${giftDownloadsPath}?key=${key}&language=${encodeURIComponent(order.language)}`;
  return { pageUrl, until: lastLocalDay(expiresAt) };
}

export interface GiftOfMail {
  /** The receiver's page of the downloads (null in the buyer's mail: the key is the receiver's). */
  pageUrl: string | null;
  /** The last day the key works, a date in Tallinn. */
  until: string;
}

export interface StoreOfMail {
  storeName: string;
  /** The front-end's page of the order, with its checksum: the buyer's alone. */
  orderPageUrl: string | null;
}

/** An order's mails speak its language (Estonian when it has none the shop knows): its words and its money. */
export function voiceOf(order: OrderRow) {
  const language: Language = isLanguage(order.language) ? order.language : 'et';
  return {
    language,
    say: (key: MessageKey, params: Record<string, string | number> = {}) => translate(language, key, params),
    money: (cents: number) => formatEuros(cents, language),
  };
}

/**
 * A mail telling the buyer what became of their order (cancelled, refunded): the greeting, `what`
 * happened, the order's page and its code, under the subject `subjectKey`.
 */
export function buyerNoticeMail(order: OrderRow, subjectKey: MessageKey, what: string[], store: StoreOfMail) {
  const { say } = voiceOf(order);
  const code = order.code ?? '';
  const blocks: string[][] = [
    [say('orders.mail.greeting', { name: order.billing_name })],
    what,
    ...(store.orderPageUrl === null ? [] : [[say('orders.mail.orderPage', { url: store.orderPageUrl })]]),
    [say('orders.mail.code', { code })],
  ];
  return { subject: say(subjectKey, { code, store: store.storeName }), ...mailBody(blocks, store.orderPageUrl) };
}

/**
 * The shop an order is collected in, as shown to shoppers in the order's language (its name is what the shopper
 * knows it by; the code is the back office's); undefined when the order is not collected in a shop, or the shop
 * is no longer shown. The confirmation and the pickup mails both name it from here.
 */
export async function orderPickupShop(db: Db, order: OrderRow) {
  if (order.delivery_shop_code === null) return undefined;
  return (await activeShops(db, voiceOf(order).language)).find((shop) => shop.code === order.delivery_shop_code);
}

export interface ConfirmationMailFacts {
  recipient: OrderMailRecipient;
  storeName: string;
  /** The pickup shop's name (null: no pickup, or the shop is gone, when its code is named). */
  shopName: string | null;
  /** The front-end's page of the order, with its checksum: the buyer's alone (null for the receiver). */
  orderPageUrl: string | null;
  /** The downloads bought for the receiver (giftOfMail), or null. */
  gift?: GiftOfMail | null;
}

/** The mail as text and HTML from the same paragraphs, so the two never disagree. */
export function confirmationMail(order: OrderRow, lines: readonly LineRow[], facts: ConfirmationMailFacts) {
  const { recipient, storeName, orderPageUrl, shopName } = facts;
  const gift = facts.gift ?? null;
  const { say, money } = voiceOf(order);
  const code = order.code ?? '';
  const name = recipient === 'receiver' ? order.shipping_name : order.billing_name;
  // Nothing to ship (digital items only): the buyer is told so, not that a parcel is being prepared.
  const intro = [
    recipient === 'receiver'
      ? say(isWithoutDelivery(order) ? 'orders.mail.receiverNothingShipped' : 'orders.mail.receiver', {
          buyer: order.billing_name,
          code,
          store: storeName,
        })
      : say(isWithoutDelivery(order) ? 'orders.mail.buyerNothingShipped' : 'orders.mail.buyer', { code }),
    ...receiverDownloadsNote(order, lines, recipient, gift),
  ];
  // Each item before the code's discount (a line's total is after it): the discount is listed once,
  // below, and the items add up to the sum it is taken from.
  const itemLines = lines.map((line) =>
    say('orders.mail.line', { title: line.title, quantity: line.quantity, total: money(line.total_cents + line.discount_cents) }),
  );
  const totals = [
    say('orders.mail.subtotal', { amount: money(order.subtotal_cents) }),
    ...(order.discount_cents > 0 ? [say('orders.mail.discount', { amount: money(order.discount_cents) })] : []),
    say('orders.mail.delivery', { method: order.delivery_name, amount: money(order.delivery_cents) }),
    say(order.vat_included ? 'orders.mail.vatIncluded' : 'orders.mail.vatAdded', { amount: money(order.vat_cents) }),
    // What gift cards paid: the total is what is left, so the lines add up to it.
    ...(order.gift_card_cents > 0 ? [say('orders.mail.giftCards', { amount: money(order.gift_card_cents) })] : []),
    say('orders.mail.total', { amount: money(order.total_cents) }),
  ];
  const blocks: string[][] = [
    [say('orders.mail.greeting', { name })],
    intro,
    [say('orders.mail.lines'), ...itemLines],
    totals,
    // Nothing shipped (digital items only): no address to name.
    ...(isWithoutDelivery(order) ? [] : [[say('orders.mail.deliverTo', { details: deliveryDetails(order, shopName) })]]),
    ...(gift?.pageUrl ? [[say('orders.mail.giftDownloadsPage', { url: gift.pageUrl })]] : []),
    ...(orderPageUrl === null ? [] : [[...downloadsNote(order, lines), say('orders.mail.orderPage', { url: orderPageUrl })]]),
    [say('orders.mail.code', { code })],
  ];
  const links = [orderPageUrl, gift?.pageUrl ?? null].filter((url): url is string => url !== null);
  return { subject: say('orders.mail.subject', { code, store: storeName }), ...mailBody(blocks, links) };
}

/** An order mail's paragraphs (each a block of lines) as text and HTML, the order page's link (or `links`) made links. */
export function mailBody(blocks: readonly string[][], links: string | null | readonly string[]): { text: string; html: string } {
  const text = blocks.map((block) => block.join('\n')).join('\n\n');
  const urls = links === null ? [] : typeof links === 'string' ? [links] : links;
  // A line's one link: the longest URL in it (…/product/1 is the start of …/product/12 too).
  const linked = (line: string) =>
    linkUrl(
      escapeHtml(line),
      urls.filter((url) => line.includes(url)).reduce<string | null>((a, b) => (a && a.length >= b.length ? a : b), null),
    );
  const html = `<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">${blocks
    .map((block) => `<p>${block.map(linked).join('<br>')}</p>`)
    .join('')}</body></html>`;
  return { text, html };
}

/**
 * Where the buyer finds the order's e-books and audiobooks: its page (GET /order/{code}/download), a
 * guest's only place, and a client's account too. Nothing for an order without downloads.
 */
function downloadsNote(order: OrderRow, lines: readonly LineRow[]): string[] {
  if (!lines.some(isDownloadLine)) return [];
  return [voiceOf(order).say(order.client_account_id === null ? 'orders.mail.downloads' : 'orders.mail.downloadsInAccount')];
}

/**
 * An order for someone else with e-books or audiobooks: the receiver is told they are theirs to download
 * (their page's link, below) and until when, and the buyer that the receiver has them. An order processed
 * before receivers had keys (no gift): the receiver is told the buyer hands them on, and the buyer so.
 */
function receiverDownloadsNote(
  order: OrderRow,
  lines: readonly LineRow[],
  recipient: OrderMailRecipient,
  gift: GiftOfMail | null,
): string[] {
  if (!orderMailRecipients(order).includes('receiver') || !lines.some(isDownloadLine)) return [];
  const { say } = voiceOf(order);
  const receiver = { receiver: order.shipping_name, email: order.shipping_email };
  if (gift !== null) {
    if (recipient === 'buyer') return [say('orders.mail.receiverToldGift', receiver)];
    const mixed = isWithoutDelivery(order) ? 'orders.mail.receiverGift' : 'orders.mail.receiverGiftMixed';
    return [say(mixed, { buyer: order.billing_name, until: gift.until })];
  }
  if (recipient === 'buyer') return [say('orders.mail.receiverTold', receiver)];
  return [
    say(isWithoutDelivery(order) ? 'orders.mail.receiverDownloads' : 'orders.mail.receiverDownloadsMixed', { buyer: order.billing_name }),
  ];
}

function deliveryDetails(order: OrderRow, shopName: string | null): string {
  const place = order.parcel_machine_name ?? shopName ?? order.delivery_shop_code;
  const address = [
    order.shipping_name,
    order.shipping_address,
    `${order.shipping_postcode} ${order.shipping_city}`,
    order.shipping_country,
  ];
  return [order.delivery_name, ...(place ? [place] : address)].filter((part) => part.trim() !== '').join(', ');
}
