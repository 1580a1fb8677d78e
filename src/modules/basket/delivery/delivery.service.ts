import type { Db } from '../../../db/database.js';
import { invalidField } from '../../../infra/domain-error.js';
import { touchBasket, type BasketRow } from '../basket.repository.js';
import { vatOfGross } from '../basket-money.js';
import { callerDeliveryCost, payableWithVatCents, priceBasket, type BasketContext, type PricedBasket } from '../basket-pricing.js';
import type { Caller } from '../../catalogue/index.js';
import { deliveryMethodOf, deliveryMethodsOf, findParcelMachine, parcelMachinesOf } from './delivery.repository.js';
import { deliveryEstimate, inService, isOffered, type OfferedMethod } from './delivery.rules.js';

export interface DeliveryChoice {
  deliveryMethodId: number;
  parcelMachineId?: number;
  shopCode?: string;
  countryCode?: string;
}

/** Where the shop is: the delivery country unless one is chosen, and the default in address forms. */
export const HOME_COUNTRY = 'EE';

/** Chooses how the basket is delivered; every part of the choice is checked against the method. */
export async function chooseDelivery(trx: Db, context: BasketContext, basket: BasketRow, choice: DeliveryChoice): Promise<BasketRow> {
  const method = await deliveryMethodOf(trx, context.store.code, context.language, choice.deliveryMethodId);
  if (!method) throw invalidField('deliveryMethodId', 'basket.unknownDeliveryMethod', { id: choice.deliveryMethodId });
  // Switched off or no longer priced here: the same to the shopper, who can only choose another.
  if (!inService(method)) throw invalidField('deliveryMethodId', 'basket.deliveryMethodWithdrawn', { name: method.name });
  const priced = await priceBasket(trx, context, basket);
  if (!isOffered(method, priced)) throw invalidField('deliveryMethodId', 'basket.deliveryNotOffered');
  let parcelMachineId: number | null = null;
  let shopId: number | null = null;
  let country = choice.countryCode?.toUpperCase() ?? null;
  switch (method.kind) {
    case 'PARCEL_MACHINE': {
      if (choice.parcelMachineId === undefined) throw invalidField('parcelMachineId', 'basket.parcelMachineRequired');
      const machine = await findParcelMachine(trx, choice.parcelMachineId);
      if (!machine || !machine.is_active || machine.carrier !== method.carrier)
        throw invalidField('parcelMachineId', 'basket.unknownParcelMachine');
      // A carrier's machines abroad are its own; the method delivers only to its countries.
      if (!method.countries.includes(machine.country_code))
        throw invalidField('parcelMachineId', 'basket.countryNotServed', { country: machine.country_code });
      parcelMachineId = Number(machine.id);
      country = machine.country_code;
      break;
    }
    case 'SHOP_PICKUP':
    case 'DRIVE_IN': {
      const code = choice.shopCode ?? (method.shops.length === 1 ? method.shops[0]!.code : undefined);
      if (code === undefined) throw invalidField('shopCode', 'basket.shopRequired');
      const shop = method.shops.find((candidate) => candidate.code === code);
      if (!shop) throw invalidField('shopCode', 'basket.unknownShop');
      shopId = shop.id;
      country = HOME_COUNTRY;
      break;
    }
    case 'INTERNATIONAL':
      if (country === null) throw invalidField('countryCode', 'basket.countryRequired');
      if (!method.countryFees.has(country)) throw invalidField('countryCode', 'basket.countryNotServed', { country });
      break;
    default:
      country ??= HOME_COUNTRY;
      if (!method.countries.includes(country)) throw invalidField('countryCode', 'basket.countryNotServed', { country });
  }
  return touchBasket(trx, basket, context.now, {
    delivery_method_id: method.id,
    parcel_machine_id: parcelMachineId,
    delivery_shop_id: shopId,
    delivery_country_code: country,
  });
}

/**
 * The methods this basket can use, each with its price for it, free threshold, estimate and pickup
 * points. Parcel machines are listed for one country, never every carrier's machines in every
 * country: `countryCode` as asked, else the basket's chosen delivery country, else Estonia.
 */
export async function availableDeliveryMethods(db: Db, context: BasketContext, priced: PricedBasket, countryCode?: string) {
  const methods = (await deliveryMethodsOf(db, context.store.code, context.language)).filter((method) => isOffered(method, priced));
  const carriers = [...new Set(methods.map((method) => method.carrier).filter((carrier): carrier is string => carrier !== null))];
  const country = countryCode?.toUpperCase() ?? priced.delivery?.countryCode ?? HOME_COUNTRY;
  const machines = await parcelMachinesOf(db, carriers, country);
  const payableCents = payableWithVatCents(
    priced.lines.filter((line) => line.available),
    priced.vatIncluded,
  );
  const shape = {
    ...priced,
    payableCents,
    freeParcelMachine: priced.code?.freeParcelMachine === true,
  };
  const shown = shownMoney(context.caller, priced.subtotalCents - priced.discountCents, payableCents);
  // The method chosen on the basket costs here what the basket charges for it: an international one
  // at the chosen country's fee (another, or one not chosen, at its cheapest country's).
  const chosen = priced.delivery?.offered ? priced.delivery : null;
  return methods.map((method) => ({
    method,
    costCents: callerDeliveryCost(method, shape, chosen?.method.id === method.id ? chosen.countryCode : null, context.caller),
    regularPriceCents: shown.price(method, method.priceCents),
    freeOverCents: method.freeOverCents === null ? null : shown.threshold(method, method.freeOverCents),
    countryFees: [...method.countryFees.entries()].map(([countryCode, cents]) => ({ countryCode, cents: shown.price(method, cents) })),
    estimate: deliveryEstimate(method, context.now),
    // Only machines that can be chosen: the method's carrier, in a country the method delivers to.
    parcelMachines:
      method.kind === 'PARCEL_MACHINE'
        ? machines.filter((machine) => machine.carrier === method.carrier && method.countries.includes(machine.country_code))
        : [],
  }));
}

/**
 * Delivery money as the caller sees it: prices and thresholds are set with VAT; a wholesale client
 * sees every amount without it, like the price (callerDeliveryCost). A price loses the method's VAT.
 * The free-delivery threshold is a sum of goods compared with VAT (the basket's payable sum with
 * its VAT added), so it is shown as the sum without VAT that reaches it for this basket's mix of
 * VAT rates (rounded up); for an empty basket, at the method's rate.
 */
function shownMoney(caller: Caller, payableNetCents: number, payableGrossCents: number) {
  const net = caller.kind === 'WHOLESALE';
  const price = (method: OfferedMethod, cents: number) => (net ? cents - vatOfGross(cents, method.vatRatePercent) : cents);
  const threshold = (method: OfferedMethod, cents: number) => {
    if (!net) return cents;
    if (payableGrossCents <= 0) return price(method, cents);
    return Math.ceil((cents * payableNetCents) / payableGrossCents);
  };
  return { price, threshold };
}
