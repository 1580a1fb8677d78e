import { addDays, localTime } from '../../../infra/shop-time.js';
import type { DeliveryKind } from '../basket.tables.js';

// Which delivery methods a basket can use, what they cost and when they arrive. A basket of only
// digital items needs no delivery: it is offered only the methods made for such baskets (if the
// store has any, e.g. by e-mail), and pays nothing; other baskets are never offered those. A heavy basket is offered only the methods that carry heavy parcels. Delivery is
// free from the method's threshold (on the sum after the discount code) and, for parcel
// machines, by a code that says so. Express courier: ordered after 12:00 in Tallinn, it goes the
// next day.

export const HEAVY_BASKET_GRAMS = 20_000;
/** Minutes after local midnight: 12:00 in Tallinn. */
const EXPRESS_CUTOFF_MINUTE = 12 * 60;

export interface DeliveryMethod {
  id: number;
  code: string;
  kind: DeliveryKind;
  carrier: string | null;
  name: string;
  countries: string[];
  suitsDigitalOnly: boolean;
  suitsHeavy: boolean;
  daysMin: number;
  daysMax: number;
  vatRatePercent: number;
  /**
   * In the basket's store; null once the back office removed its price there: a basket that chose
   * it before keeps it, not offered, and nothing is ever charged for it (a missing price is not 0).
   */
  priceCents: number | null;
  freeOverCents: number | null;
  /** International delivery: the fee of each country it delivers to. */
  countryFees: Map<string, number>;
  /** Shop and drive-in pickup: the shops. */
  shops: Array<{ id: number; code: string; name: string; city: string }>;
  /** False once the back office switched it off: a basket that chose it before keeps it, not offered. */
  isActive: boolean;
}

/** A method the store offers: switched on and priced there. */
export type OfferedMethod = DeliveryMethod & { priceCents: number };

/**
 * Whether the back office still offers the method in the basket's store. It withdraws one by
 * switching it off or by removing its price there; a shopper is told the same of either, and of a
 * pickup method none of whose shops is open (`shops` holds the open ones): nothing of it can be chosen.
 */
export function inService(method: DeliveryMethod): method is OfferedMethod {
  if (isPickup(method.kind) && method.shops.length === 0) return false;
  return method.isActive && method.priceCents !== null;
}

/** A method collected at a shop (at its counter or its drive-in window). */
const isPickup = (kind: DeliveryKind) => kind === 'SHOP_PICKUP' || kind === 'DRIVE_IN';

export interface BasketShape {
  digitalOnly: boolean;
  heavy: boolean;
}

export function isOffered(method: DeliveryMethod, basket: BasketShape): boolean {
  if (!inService(method)) return false;
  // A method for digital-only baskets (e-mail) is offered to them alone, and they only such methods.
  if (basket.digitalOnly !== method.suitsDigitalOnly) return false;
  if (basket.heavy && !method.suitsHeavy) return false;
  return true;
}

/** What the method costs the basket: `country` for international delivery (none: its cheapest fee). */
export function deliveryCost(
  method: OfferedMethod,
  basket: BasketShape & { payableCents: number; freeParcelMachine: boolean },
  country: string | null,
): number {
  if (basket.digitalOnly) return 0;
  if (method.kind === 'PARCEL_MACHINE' && basket.freeParcelMachine) return 0;
  if (method.freeOverCents !== null && basket.payableCents >= method.freeOverCents) return 0;
  if (method.kind === 'INTERNATIONAL') {
    const fee = country === null ? Math.min(...method.countryFees.values()) : method.countryFees.get(country);
    return fee ?? method.priceCents;
  }
  return method.priceCents;
}

/** The first and last day (Tallinn dates, YYYY-MM-DD) an order placed at `now` arrives. */
export function deliveryEstimate(method: DeliveryMethod, now: number): { from: string; to: string } {
  const { date, minute } = localTime(now);
  const late = method.kind === 'EXPRESS_COURIER' && minute >= EXPRESS_CUTOFF_MINUTE ? 1 : 0;
  return { from: addDays(date, method.daysMin + late), to: addDays(date, method.daysMax + late) };
}

/**
 * Whether the method delivers to the receiver's address, so its country (and an international
 * fee) is the shipping address's; parcel machines and shops have their own.
 */
export function takesAddressCountry(kind: DeliveryKind): boolean {
  return kind !== 'PARCEL_MACHINE' && !isPickup(kind);
}

/** What a basket's stored delivery choice points at, as read now. */
export interface StoredChoice {
  machine: { isActive: boolean; carrier: string; countryCode: string } | undefined;
  shop: { id: number } | null;
  country: string | null;
}

/**
 * Whether a delivery choice made earlier still holds: the data it named may have changed since
 * (a parcel machine deactivated or removed, a shop no longer offering pickup, a country dropped).
 * A choice that no longer holds is shown unavailable and costs nothing until the shopper chooses
 * again, as when the basket outgrew the method.
 */
export function choiceStillHolds(method: DeliveryMethod, choice: StoredChoice): boolean {
  switch (method.kind) {
    case 'PARCEL_MACHINE':
      return (
        choice.machine !== undefined &&
        choice.machine.isActive &&
        choice.machine.carrier === method.carrier &&
        method.countries.includes(choice.machine.countryCode)
      );
    case 'SHOP_PICKUP':
    case 'DRIVE_IN':
      return choice.shop !== null;
    case 'INTERNATIONAL':
      return choice.country !== null && method.countryFees.has(choice.country);
    default:
      return choice.country === null || method.countries.includes(choice.country);
  }
}
