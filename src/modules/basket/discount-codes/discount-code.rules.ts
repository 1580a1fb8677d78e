import { isGiftCard, type CustomerKind } from '../../pricing/index.js';
import { percentOff, shares } from '../basket-money.js';
import type { DiscountConditionKind, DiscountConditionMode } from '../basket.tables.js';

// When a discount code applies and what it takes off. One code per basket. A code never stacks
// with another discount of a line: the line pays the lower of its price and the code's price, so
// the larger discount wins, compared line by line. A percentage code's price is that percentage
// off the shop price. A fixed amount is split over the eligible lines in proportion to their shop
// price totals (never more than those totals); a line's share off its shop price total is the
// code's price for that line, so a line with a smaller own discount gets the difference and one
// with a larger own discount gets nothing. A gift card is never eligible (it is money). Conditions:
// within one kind (categories, products, bindings, types) any listed value includes a line; every
// kind that lists values must include it; any exclusion excludes it. A category includes its subtree.

export interface DiscountCode {
  id: number;
  code: string;
  percent: number | null;
  amountCents: number | null;
  validFrom: number | null;
  validTo: number | null;
  maxUses: number | null;
  usedCount: number;
  minBasketCents: number | null;
  customerKinds: CustomerKind[];
  stores: string[];
  freeParcelMachine: boolean;
  isActive: boolean;
  conditions: Array<{ mode: DiscountConditionMode; kind: DiscountConditionKind; value: string }>;
}

/**
 * Why a code takes nothing off now; or, OTHER_DISCOUNT_PARTLY, why it takes off less than it says
 * (its products already carry discounts of their own, and the larger wins line by line).
 */
export type CodeReason =
  | 'INACTIVE'
  | 'NOT_YET_VALID'
  | 'EXPIRED'
  | 'USED_UP'
  | 'OTHER_STORE'
  | 'CUSTOMER_KIND'
  | 'BELOW_MINIMUM'
  | 'NO_ELIGIBLE_ITEMS'
  | 'OTHER_DISCOUNT_LARGER'
  | 'OTHER_DISCOUNT_PARTLY'
  | 'DELIVERY_NOT_COVERED'
  | 'DELIVERY_FREE_ANYWAY';

/**
 * Reasons that depend only on the delivery chosen: the code is kept, takes nothing off, and
 * checkout goes on without it (the delivery is chosen on the checkout form itself).
 */
export const DELIVERY_REASONS: ReadonlySet<CodeReason> = new Set(['DELIVERY_NOT_COVERED', 'DELIVERY_FREE_ANYWAY']);

/** What the code rules read of a basket line (an orderable one). */
export interface CodeLine {
  productId: number;
  productCode: string;
  type: string;
  bindingCode: string | null;
  categoryCodes: ReadonlySet<string>;
  /** The regular price the code's percentage is taken from (the shop price; for prices without VAT the unit price). */
  basePriceCents: number;
  unitPriceCents: number;
  quantity: number;
}

export interface CodeOutcome {
  /** Cents taken off in all. */
  amountCents: number;
  /** Cents taken off each line, by product id. */
  perLine: Map<number, number>;
  reason: CodeReason | null;
  /** Whether parcel-machine delivery is free by this code (it applies). */
  freeParcelMachine: boolean;
}

/** Whether a code with this reason (or none) changes the price: it is applied, named by the order and counted. */
export const codeApplies = (reason: CodeReason | null): boolean => reason === null || reason === 'OTHER_DISCOUNT_PARTLY';

/** Reasons that hold whatever the basket holds: the code cannot be added at all while one holds. */
export const BLOCKING_REASONS: ReadonlySet<CodeReason> = new Set([
  'INACTIVE',
  'NOT_YET_VALID',
  'EXPIRED',
  'USED_UP',
  'OTHER_STORE',
  'CUSTOMER_KIND',
]);

export function blockingReason(code: DiscountCode, kind: CustomerKind, storeCode: string, now: number): CodeReason | null {
  if (!code.isActive) return 'INACTIVE';
  if (code.validFrom !== null && now < code.validFrom) return 'NOT_YET_VALID';
  if (code.validTo !== null && now >= code.validTo) return 'EXPIRED';
  if (code.maxUses !== null && code.usedCount >= code.maxUses) return 'USED_UP';
  if (code.stores.length > 0 && !code.stores.includes(storeCode)) return 'OTHER_STORE';
  if (!code.customerKinds.includes(kind)) return 'CUSTOMER_KIND';
  return null;
}

const none = (reason: CodeReason): CodeOutcome => ({ amountCents: 0, perLine: new Map(), reason, freeParcelMachine: false });

export function evaluateCode(
  code: DiscountCode,
  lines: readonly CodeLine[],
  context: { kind: CustomerKind; storeCode: string; now: number; subtotalCents: number },
): CodeOutcome {
  const blocked = blockingReason(code, context.kind, context.storeCode, context.now);
  if (blocked) return none(blocked);
  if (code.minBasketCents !== null && context.subtotalCents < code.minBasketCents) return none('BELOW_MINIMUM');
  const eligible = lines.filter((line) => isEligible(code, line));
  // A code that only makes parcel machines free needs no eligible line.
  if (eligible.length === 0 && (code.percent !== null || code.amountCents !== null)) return none('NO_ELIGIBLE_ITEMS');
  const perLine = new Map<number, number>();
  // What the code takes off lines without discounts of their own: what it says it does.
  let saysCents = 0;
  if (code.percent !== null) {
    for (const line of eligible) {
      const codePrice = percentOff(line.basePriceCents, code.percent);
      saysCents += (line.basePriceCents - codePrice) * line.quantity;
      const off = Math.max(0, line.unitPriceCents - codePrice) * line.quantity;
      if (off > 0) perLine.set(line.productId, off);
    }
  } else if (code.amountCents !== null) {
    const shopTotals = eligible.map((line) => line.basePriceCents * line.quantity);
    const amount = Math.min(
      code.amountCents,
      shopTotals.reduce((a, b) => a + b, 0),
    );
    saysCents = amount;
    const parts = shares(amount, shopTotals);
    eligible.forEach((line, index) => {
      const codeTotal = shopTotals[index]! - parts[index]!;
      const off = Math.max(0, line.unitPriceCents * line.quantity - codeTotal);
      if (off > 0) perLine.set(line.productId, off);
    });
  }
  const amountCents = [...perLine.values()].reduce((a, b) => a + b, 0);
  return { amountCents, perLine, reason: reasonOf(code, amountCents, saysCents), freeParcelMachine: code.freeParcelMachine };
}

/** Why a code that applies takes off `amountCents` where it says `saysCents`: the lines' own discounts win. */
function reasonOf(code: DiscountCode, amountCents: number, saysCents: number): CodeReason | null {
  if (amountCents === 0) return code.freeParcelMachine ? null : 'OTHER_DISCOUNT_LARGER';
  return amountCents < saysCents ? 'OTHER_DISCOUNT_PARTLY' : null;
}

/**
 * Why a code that applies but takes nothing off the lines (one that only makes parcel machines
 * free) changes nothing about the price either: no parcel machine is the delivery (none chosen,
 * another kind, or one no longer offered: withdrawn, or the basket no longer suits it), or the
 * machine costs nothing without the code. Null when the code makes the chosen machine free.
 * `delivery` is the chosen delivery when it is offered (else null); `regularCents` its cost without the code.
 */
export function freeDeliveryReason(delivery: { kind: string; regularCents: number } | null): CodeReason | null {
  if (!delivery || delivery.kind !== 'PARCEL_MACHINE') return 'DELIVERY_NOT_COVERED';
  return delivery.regularCents === 0 ? 'DELIVERY_FREE_ANYWAY' : null;
}

function isEligible(code: DiscountCode, line: CodeLine): boolean {
  // A gift card is money, sold at face value (pricing): a code selling it for less would hand out cash.
  if (isGiftCard(line.type)) return false;
  const includes = new Map<DiscountConditionKind, boolean>();
  for (const condition of code.conditions) {
    const hit = matches(condition.kind, condition.value, line);
    if (condition.mode === 'EXCLUDE') {
      if (hit) return false;
    } else {
      includes.set(condition.kind, (includes.get(condition.kind) ?? false) || hit);
    }
  }
  return [...includes.values()].every(Boolean);
}

function matches(kind: DiscountConditionKind, value: string, line: CodeLine): boolean {
  switch (kind) {
    case 'CATEGORY':
      return line.categoryCodes.has(value);
    case 'PRODUCT':
      return line.productCode === value;
    case 'BINDING':
      return line.bindingCode === value;
    case 'TYPE':
      return line.type === value;
  }
}
