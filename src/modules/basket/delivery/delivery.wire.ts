import { toWireMoney } from '../../pricing/index.js';
import type { availableDeliveryMethods } from './delivery.service.js';

type Offered = Awaited<ReturnType<typeof availableDeliveryMethods>>[number];

/** A delivery method as the caller sees it: every amount with VAT, or every one without it (wholesale). */
export function deliveryMethodWire({
  method,
  costCents,
  regularPriceCents,
  freeOverCents,
  countryFees,
  estimate,
  parcelMachines,
}: Offered) {
  return {
    id: method.id,
    code: method.code,
    kind: method.kind,
    carrier: method.carrier,
    name: method.name,
    price: toWireMoney(costCents),
    regularPrice: toWireMoney(regularPriceCents),
    freeOver: freeOverCents === null ? null : toWireMoney(freeOverCents),
    estimate,
    countries: method.countries,
    countryFees: countryFees.map(({ countryCode, cents }) => ({ countryCode, price: toWireMoney(cents) })),
    shops: method.shops.map(({ code, name, city }) => ({ code, name, city })),
    parcelMachines: parcelMachines.map((machine) => ({
      id: Number(machine.id),
      name: machine.name,
      city: machine.city,
      address: machine.address,
    })),
  };
}
