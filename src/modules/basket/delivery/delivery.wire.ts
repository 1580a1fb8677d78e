import { toWireMoney } from '../../pricing/index.js';
import type { availableDeliveryMethods } from './delivery.service.js';

type Offered = Awaited<ReturnType<typeof availableDeliveryMethods>>[number];

export function deliveryMethodWire({ method, costCents, estimate, parcelMachines }: Offered) {
  return {
    id: method.id,
    code: method.code,
    kind: method.kind,
    carrier: method.carrier,
    name: method.name,
    price: toWireMoney(costCents),
    regularPrice: toWireMoney(method.priceCents),
    freeOver: method.freeOverCents === null ? null : toWireMoney(method.freeOverCents),
    estimate,
    countries: method.countries,
    countryFees: [...method.countryFees.entries()].map(([countryCode, cents]) => ({ countryCode, price: toWireMoney(cents) })),
    shops: method.shops.map(({ code, name, city }) => ({ code, name, city })),
    parcelMachines: parcelMachines.map((machine) => ({
      id: Number(machine.id),
      name: machine.name,
      city: machine.city,
      address: machine.address,
    })),
  };
}
