import { createHash } from 'node:crypto';
import { normaliseEmail } from '../../infra/email-address.js';
import type { Db } from '../../db/database.js';
import { badRequest, conflict, DomainError, InvalidInputError, type InvalidField } from '../../infra/domain-error.js';
import { formatEuros, translate, type Language, type MessageKey } from '../../i18n/index.js';
import { basketCheckout } from '../basket/index.js';
import { lockLiveClientAccount } from '../client-account-lock/index.js';
import type { GatewayName } from '../payments/index.js';
import { requestSubscription } from '../newsletter/index.js';
import { deliveryDays, holdForOrder, recordPurchases } from '../gift-cards/index.js';
import type { CheckoutBody } from './checkout.schemas.js';
import { deliveryChoice, deliveryCountryProblem, formProblems, receiverOf, shippingProblems } from './checkout-form.js';
import { NO_DELIVERY } from './no-delivery.js';
import { recordCreated } from './order-states.js';
import { findOrderByBasketVersion, findOrderByIdempotencyKey, insertOrder, insertOrderLines, setOrderCode } from './orders.repository.js';
import { prepaymentReason, PAYMENT_METHODS, paymentMethodRefusal } from './payment-methods.js';
import { holdStock, keepProduct } from './stock.repository.js';

type PricedBasket = basketCheckout.PricedBasket;

// Checkout: a basket becomes an order, in the caller's one transaction. The basket is locked,
// its delivery set (the form's, else the one chosen on the basket, judged by the same rules) and
// priced afresh from the database (never from a cache); the form, the lines,
// the code and the payment method are judged together so a 422 names every problem at once; then
// the order and its lines are written, the stock held, the code's use counted and the basket
// emptied. Any refusal rolls all of it back. A repeat (the same Idempotency-Key, or the same
// basket unchanged since its checkout) with the same form answers the order the first one made,
// and with another form is a 409. The rows it shares with
// an order's status change are taken in order-states.ts's order: the buyer's event stream (the
// order.created event), the products' stock, the discount code, the gift cards.

export interface CheckoutActor {
  context: basketCheckout.BasketContext;
  owner: basketCheckout.BasketOwner;
  /** Whose Idempotency-Keys these are: the store with the client account, or with the guest's basket token. */
  idempotencyScope: string | null;
}

export interface CheckoutInput {
  form: CheckoutBody;
  idempotencyKey: string | undefined;
  sessionId: string | undefined;
  gateways: ReadonlySet<GatewayName>;
  /** The outbox's settings, for the newsletter confirmation the form may ask for. */
  jobs: { maxAttempts: number };
}

export interface PlacedOrder {
  orderId: number;
  /** False when the request repeated an earlier checkout and got its order back. */
  created: boolean;
}

/** How long an unchanged, emptied basket answers its order again instead of being an empty basket. */
const RESUBMIT_WINDOW_MS = 10 * 60_000;

const STORE_PREFIX: Record<string, string> = { WEB: 'WT', WEB2: 'WN' };

export async function placeOrder(trx: Db, actor: CheckoutActor, input: CheckoutInput, now: number): Promise<PlacedOrder> {
  const { context } = actor;
  // A client's order is personal data: made under the lock the erasure takes first, so an erasure
  // either sees it (and is refused while it is open) or has ended the account (a 401 here).
  if (actor.owner.kind === 'client') await lockLiveClientAccount(trx, actor.owner.clientAccountId);
  const basket = await basketCheckout.lockBasketForCheckout(trx, actor.owner, context.store.code, now);
  const byKey = await orderOfKey(trx, actor, input);
  if (byKey) return byKey;
  if (!basket) throw badRequest('checkout.emptyBasket');
  // A resubmit soon after (a double click, a retried request) finds the order of the unchanged basket.
  const unchanged = await findOrderByBasketVersion(trx, basket.id, basket.version);
  if (unchanged && Number(unchanged.created_at) > now - RESUBMIT_WINDOW_MS)
    return repeated(unchanged, input.form, () => conflict('checkout.basketAlreadyOrdered', { code: unchanged.code ?? '' }));

  const problems = await formProblems(trx, input.form);
  let priced: PricedBasket | undefined;
  try {
    priced = await basketCheckout.priceForCheckout(trx, context, basket, deliveryChoice(input.form));
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    // The delivery country is the shipping country's field on this form.
    for (const field of error.fields) {
      const named = field.field === 'countryCode' ? { ...field, field: 'shippingCountryNavCode' } : field;
      if (!problems.some((problem) => problem.field === named.field)) problems.push(named);
    }
  }
  if (priced && priced.lines.length === 0) throw badRequest('checkout.emptyBasket');
  if (priced) refuseSoldOut(priced);
  if (priced) problems.push(...basketProblems(priced, context.language, now));
  // A form that chose no delivery for a basket with something to ship (or whose choice was refused
  // above) has no delivery to judge a payment method by; one with nothing to ship has none at all.
  const shipsSomething = !priced || basketCheckout.needsDelivery(priced);
  const deliveryMissing = shipsSomething && !priced?.delivery;
  const deliveryChosen = input.form.deliveryMethodId !== undefined || basket.delivery_method_id !== null;
  problems.push(...shippingProblems(input.form, shipsSomething, deliveryChosen, problems));
  const countryProblem = shipsSomething ? deliveryCountryProblem(input.form, priced?.delivery ?? null) : null;
  if (countryProblem && !problems.some((problem) => problem.field === countryProblem.field)) problems.push(countryProblem);
  const method = PAYMENT_METHODS.find((candidate) => candidate.id === input.form.paymentMethodId);
  const refusal = paymentMethodRefusal(
    method,
    context.caller.kind,
    priced?.delivery?.method.kind ?? NO_DELIVERY.kind,
    input.gateways,
    priced ? prepaymentReason(priced) : null,
  );
  if (refusal && !(refusal === 'checkout.paymentNotWithDelivery' && deliveryMissing))
    problems.push({ field: 'paymentMethodId', messageKey: refusal });
  if (problems.length > 0 || !priced || !priced.basket || deliveryMissing || !method) throw new InvalidInputError(problems);

  const emptied = await basketCheckout.emptyBasketAfterCheckout(trx, priced.basket, now);
  const orderId = await insertOrder(trx, {
    ...orderRow(actor, input, priced, method.id, now),
    basket_id: basket.id,
    basket_version_after: emptied.version,
    idempotency_scope: input.idempotencyKey !== undefined ? actor.idempotencyScope : null,
    idempotency_key: input.idempotencyKey !== undefined && actor.idempotencyScope !== null ? input.idempotencyKey : null,
    request_hash: formHash(input.form),
  });
  await setOrderCode(trx, orderId, `${STORE_PREFIX[context.store.code] ?? 'WT'}${String(orderId).padStart(8, '0')}`);
  await recordCreated(trx, orderId, now);
  const lines = priced.lines.filter((line) => line.available);
  const stockBound = lines.map((line) => basketCheckout.shipsOnlyFromStock(line.product));
  // Every line's product row is taken, in product id order as stock.repository.ts takes several
  // products' rows (two baskets with the same products added the other way round each held one and
  // waited for the other: on PostgreSQL a deadlock, one of the checkouts a 500). A line that ships
  // from stock holds it (the row's update lock); any other keeps the row in share mode, so that a
  // deactivation of an e-book waits for this order or is read below, and two orders of it share it.
  const byProduct = lines.map((line, index) => ({ line, bound: stockBound[index]! })).sort((a, b) => a.line.product.id - b.line.product.id);
  for (const { line, bound } of byProduct) {
    if (!bound) await keepProduct(trx, line.product.id);
    else if (!(await holdStock(trx, line.product.id, line.quantity)))
      throw conflict('checkout.outOfStock', { product: line.product.name, left: await freeStock(trx, line.product.id) });
  }
  // The basket was priced before the rows were taken; a hold or share lock that waited for a writer
  // of the product (a feed deactivating it) has the product as that writer left it. A line that
  // cannot be ordered now is the 422 it is when the basket is priced after the change.
  const gone = await basketCheckout.linesUnavailableNow(trx, context, lines);
  if (gone.length > 0)
    throw new InvalidInputError(
      gone.map((line) => ({
        field: `lines.${line.product.code}`,
        messageKey: 'checkout.lineUnavailable' as const,
        params: { product: line.product.name },
      })),
    );
  await insertOrderLines(
    trx,
    lines.map((line, index) => ({
      order_id: orderId,
      position: index + 1,
      product_id: line.product.id,
      product_code: line.product.code,
      product_type: line.product.type,
      title: line.product.name.slice(0, 500),
      quantity: line.quantity,
      unit_price_cents: line.price.priceCents,
      regular_price_cents: line.price.strikeThroughCents ?? line.price.priceCents,
      discount_cents: line.discountCents,
      total_cents: line.totalCents - line.discountCents,
      vat_rate: line.product.vatRatePercent,
      is_digital: basketCheckout.isDigitalProduct(line.product),
      stock_bound: stockBound[index]!,
      reserved_quantity: stockBound[index] ? line.quantity : 0,
    })),
  );
  const code = appliedCode(priced);
  if (code && !(await basketCheckout.countDiscountCodeUse(trx, code.id)))
    throw new InvalidInputError([{ field: 'discountCode', messageKey: 'basket.code.USED_UP' }]);
  // Virtual gift cards bought: their details, by order line, for the card issued once paid.
  await recordPurchases(
    trx,
    orderId,
    {
      clientAccountId: context.caller.clientAccountId,
      email: normaliseEmail(input.form.billingEmail),
      storeCode: context.store.code,
      language: context.language,
    },
    lines.flatMap((line, index) => (line.virtualCard ? [{ position: index + 1, card: line.virtualCard }] : [])),
    now,
  );
  // The cards' shares are held on their ledgers now; a card paying less than the basket showed refuses it all.
  await holdForOrder(trx, basket.id, orderId, priced.giftCards, now);
  // "Subscribe me" asks for a subscription like the newsletter form: the buyer confirms by mail.
  if (input.form.newsletterSubscription === true)
    await requestSubscription(
      trx,
      { jobs: input.jobs },
      { email: input.form.billingEmail, language: context.language, storeCode: context.store.code, source: 'checkout' },
      now,
    );
  return { orderId, created: true };
}

/**
 * The order this request's Idempotency-Key placed, answered as a repeat of it (below); undefined
 * when the key (or the caller's scope for keys) is not given or placed nothing yet.
 */
export async function orderOfKey(db: Db, actor: CheckoutActor, input: CheckoutInput): Promise<PlacedOrder | undefined> {
  if (input.idempotencyKey === undefined || actor.idempotencyScope === null) return undefined;
  const earlier = await findOrderByIdempotencyKey(db, actor.idempotencyScope, input.idempotencyKey);
  return earlier && repeated(earlier, input.form, () => new DomainError('conflict', 'checkout.idempotencyKeyReused'));
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The form's text with its keys sorted at every level: the same form with its fields in another order is the same form. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const entries = Object.entries(value as Record<string, unknown>).filter(([, field]) => field !== undefined);
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, field]) => `${JSON.stringify(key)}:${canonicalJson(field)}`).join(',')}}`;
}

const formHash = (form: CheckoutBody) => sha256(canonicalJson(form));

/**
 * Whether `form` is the form the earlier order was placed with. Orders placed before 2026-12-01
 * kept the hash of the form's fields in the order they were sent, so one of those retried with the
 * same body is recognised by that hash too (their keys expire, and their baskets' resubmit window
 * is 10 minutes, so this matters only for retries across that deploy).
 */
const sameForm = (requestHash: string | null, form: CheckoutBody) =>
  requestHash === formHash(form) || requestHash === sha256(JSON.stringify(form));

/**
 * A checkout sent again, found by its key or by its basket: the same form answers the first order
 * (a double click, a retry); another form is a 409 and changes nothing, for answering the first
 * order to it would tell the shopper the new delivery or address was taken.
 */
function repeated(earlier: { id: number; request_hash: string | null }, form: CheckoutBody, refusal: () => DomainError): PlacedOrder {
  if (!sameForm(earlier.request_hash, form)) throw refusal();
  return { orderId: Number(earlier.id), created: false };
}

/**
 * Copies that other orders took since the shopper filled the basket: the race for the last copies
 * is a 409 naming the product, not a form error.
 */
function refuseSoldOut(priced: PricedBasket): void {
  for (const line of priced.lines) {
    if (!basketCheckout.shipsOnlyFromStock(line.product) || line.product.availability === 'PERMANENTLY_OUT_OF_STOCK') continue;
    const free = Math.max(0, line.product.webStock);
    if (line.line.quantity > free) throw conflict('checkout.outOfStock', { product: line.product.name, left: free });
  }
}

/**
 * The most an order's sums may come to, in cents: its money columns (customer_order's and
 * order_line's) are 32-bit integers on PostgreSQL, where a larger sum failed the order's insert.
 */
const MAX_ORDER_CENTS = 2_147_483_647;

/**
 * Lines that cannot be ordered as they stand, a code that no longer applies, and a sum too large to
 * record. A virtual gift card's delivery date is judged again: a client's basket is kept while it has
 * lines, and a day passed since the card went in would issue it valid a year from that day (expired
 * already, a year on), mailed at once.
 */
function basketProblems(priced: PricedBasket, language: Language, now: number): InvalidField[] {
  const problems: InvalidField[] = [];
  const days = deliveryDays(now);
  // Every sum an order records is at most its lines' (subtotal) or what is paid with VAT before the gift cards.
  if (Math.max(priced.subtotalCents, priced.toPayCents + priced.giftCardCents) > MAX_ORDER_CENTS)
    problems.push({ field: 'lines', messageKey: 'checkout.orderTooLarge', params: { max: formatEuros(MAX_ORDER_CENTS, language) } });
  for (const line of priced.lines) {
    const field = `lines.${line.product.code}`;
    if (line.notice?.code === 'UNAVAILABLE')
      problems.push({ field, messageKey: 'checkout.lineUnavailable', params: { product: line.product.name } });
    else if (line.notice?.code === 'QUANTITY_CUT')
      problems.push({ field, messageKey: 'checkout.lineQuantityCut', params: { product: line.product.name, max: line.notice.max } });
    else if (line.virtualCard && line.virtualCard.deliverOn < days.from)
      problems.push({ field, messageKey: 'giftCards.deliveryDate', params: days });
  }
  // A code that changes nothing only because of the delivery this form chooses is left unused, not refused.
  if (priced.code && priced.code.reason !== null && !priced.code.applied && !basketCheckout.DELIVERY_REASONS.has(priced.code.reason))
    problems.push({
      field: 'discountCode',
      messageKey: `basket.code.${priced.code.reason}` as MessageKey,
      params: { min: formatEuros(priced.code.code.minBasketCents ?? 0, language) },
    });
  if (priced.delivery && !priced.delivery.offered) problems.push({ field: 'deliveryMethodId', messageKey: 'basket.deliveryNotOffered' });
  return problems;
}

/**
 * The basket's code where it changed the order (pricing says whether it did): a discount, or the
 * parcel machine it makes free (a code may do only that). Then the order names it and it is
 * counted as a use against its limit.
 */
function appliedCode(priced: PricedBasket) {
  return priced.code?.applied ? priced.code.code : null;
}

function orderRow(actor: CheckoutActor, input: CheckoutInput, priced: PricedBasket, paymentMethod: string, now: number) {
  const { form } = input;
  const { caller, store, language } = actor.context;
  const { delivery } = priced;
  const receiver = receiverOf(form);
  const vatCents = priced.vat.reduce((sum, rate) => sum + rate.vatCents, 0);
  return {
    store_code: store.code,
    client_account_id: caller.clientAccountId,
    customer_kind: caller.kind,
    language,
    status: 'NEW' as const,
    status_changed_at: now,
    shipping_name: receiver.name.trim(),
    shipping_email: normaliseEmail(receiver.email),
    shipping_phone: receiver.phone.trim(),
    shipping_address: receiver.address.trim(),
    shipping_city: receiver.city.trim(),
    shipping_postcode: receiver.postcode.trim(),
    shipping_country: receiver.country.toUpperCase(),
    billing_name: form.billingName.trim(),
    billing_email: normaliseEmail(form.billingEmail),
    billing_phone: form.billingPhone.trim(),
    billing_address: form.billingAddress.trim(),
    billing_city: form.billingCity.trim(),
    billing_postcode: form.billingPostcode.trim(),
    billing_country: form.billingCountryNavCode.toUpperCase(),
    notes: (form.notes ?? '').trim(),
    newsletter: form.newsletterSubscription === true,
    delivery_method_id: delivery?.method.id ?? NO_DELIVERY.id,
    delivery_method_code: delivery?.method.code ?? NO_DELIVERY.code,
    delivery_kind: delivery?.method.kind ?? NO_DELIVERY.kind,
    delivery_name: delivery?.method.name ?? translate(language, NO_DELIVERY.nameKey),
    parcel_machine_id: delivery?.parcelMachine?.id ?? null,
    parcel_machine_name: delivery?.parcelMachine
      ? `${delivery.parcelMachine.name}, ${delivery.parcelMachine.address}, ${delivery.parcelMachine.city}`.slice(0, 300)
      : null,
    delivery_shop_code: delivery?.shop?.code ?? null,
    delivery_country: delivery?.countryCode ?? null,
    delivery_cents: priced.deliveryCents,
    delivery_vat_rate: delivery?.method.vatRatePercent ?? 0,
    payment_method: paymentMethod,
    discount_code_id: appliedCode(priced)?.id ?? null,
    discount_code: appliedCode(priced)?.code ?? null,
    discount_cents: priced.discountCents,
    subtotal_cents: priced.subtotalCents,
    vat_cents: vatCents,
    // What is paid: with VAT (a wholesale basket is priced without it, so its VAT is added), less
    // what the gift cards pay; nothing left means the order skips the gateway.
    gift_card_cents: priced.giftCardCents,
    total_cents: (priced.vatIncluded ? priced.totalCents : priced.totalCents + vatCents) - priced.giftCardCents,
    vat_included: priced.vatIncluded,
    session_id: input.sessionId ?? null,
    created_at: now,
    updated_at: now,
  };
}

async function freeStock(trx: Db, productId: number): Promise<number> {
  const row = await trx.selectFrom('product').select(['web_stock', 'reserved_quantity']).where('id', '=', productId).executeTakeFirst();
  return row ? Math.max(0, Number(row.web_stock) - Number(row.reserved_quantity)) : 0;
}
