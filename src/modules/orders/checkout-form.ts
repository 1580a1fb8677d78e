import type { Db } from '../../db/database.js';
import type { InvalidField } from '../../infra/domain-error.js';
import { basketCheckout, type DeliveryKind } from '../basket/index.js';
import { knownCountries } from '../country/index.js';
import type { CheckoutBody } from './checkout.schemas.js';

// The checkout form beyond its schema: what it gets wrong, the delivery it chooses, and who
// receives the order. Which of its parts are required depends on the basket: a delivery method
// and a shipping address only when there is something to ship.

/** What the form itself gets wrong beyond its schema: the terms, the countries. */
export async function formProblems(trx: Db, form: CheckoutBody): Promise<InvalidField[]> {
  const problems: InvalidField[] = [];
  if (!form.termsAccepted) problems.push({ field: 'termsAccepted', messageKey: 'checkout.termsRequired' });
  const given = (['shippingCountryNavCode', 'billingCountryNavCode'] as const).flatMap((field) => {
    const code = form[field];
    return code === undefined ? [] : [{ field, code: code.toUpperCase() }];
  });
  const countries = await knownCountries(
    trx,
    given.map(({ code }) => code),
  );
  for (const { field, code } of given)
    if (!countries.has(code)) problems.push({ field, messageKey: 'checkout.unknownCountry', params: { code } });
  return problems;
}

/**
 * The form's delivery choice for the basket; null when it names no delivery method, and then the
 * one chosen on the basket holds. A form that names one wins over the basket's: it is what the
 * shopper confirmed on the checkout page (priced there by GET /checkout/meta's deliveryMethods).
 */
export function deliveryChoice(form: CheckoutBody): basketCheckout.DeliveryChoice | null {
  if (form.deliveryMethodId === undefined) return null;
  return {
    deliveryMethodId: form.deliveryMethodId,
    parcelMachineId: form.parcelMachineId,
    shopCode: form.shopCode,
    countryCode: form.shippingCountryNavCode,
  };
}

const SHIPPING_FIELDS = [
  'shippingName',
  'shippingEmail',
  'shippingPhone',
  'shippingAddress',
  'shippingCity',
  'shippingPostcode',
  'shippingCountryNavCode',
] as const;

/**
 * A basket with something to ship needs a delivery method (the form's or the basket's:
 * `deliveryChosen`) and the whole shipping address, named as the schema names a missing field. A
 * parcel machine or shop named without its method asks for the method too: taken with the
 * basket's method instead, the order could go where the checkout page did not say. One with
 * nothing to ship takes the shipping contact whole or not at all (then the billing contact is the
 * receiver's): half of one is a mistake.
 */
export function shippingProblems(
  form: CheckoutBody,
  shipsSomething: boolean,
  deliveryChosen: boolean,
  found: readonly InvalidField[],
): InvalidField[] {
  const required = (field: string): InvalidField => ({ field, messageKey: 'validation.required', params: { field } });
  const problems: InvalidField[] = [];
  const pickupWithoutMethod = form.deliveryMethodId === undefined && (form.parcelMachineId !== undefined || form.shopCode !== undefined);
  if (shipsSomething && (!deliveryChosen || pickupWithoutMethod)) problems.push(required('deliveryMethodId'));
  if (shipsSomething || SHIPPING_FIELDS.some((field) => form[field] !== undefined))
    for (const field of SHIPPING_FIELDS)
      if (form[field] === undefined && !found.some((problem) => problem.field === field)) problems.push(required(field));
  return problems;
}

/** The receiver: the form's shipping contact, or the billing contact when nothing is shipped and none was given. */
export function receiverOf(form: CheckoutBody) {
  const side = form.shippingName === undefined ? 'billing' : 'shipping';
  return {
    name: form[`${side}Name`]!,
    email: form[`${side}Email`]!,
    phone: form[`${side}Phone`]!,
    address: form[`${side}Address`]!,
    city: form[`${side}City`]!,
    postcode: form[`${side}Postcode`]!,
    country: form[`${side}CountryNavCode`]!,
  };
}

/**
 * A delivery to the receiver's address (a courier, international) is priced for a country: the
 * form's shipping country when the form names the delivery, the basket's when it comes from the
 * basket. An address in another country than the basket's choice would ship the order at a price
 * the shopper was never shown, so it is refused on the shipping country.
 */
export function deliveryCountryProblem(
  form: CheckoutBody,
  delivery: { method: { kind: DeliveryKind }; countryCode: string | null } | null,
): InvalidField | null {
  const shipTo = form.shippingCountryNavCode?.toUpperCase();
  if (!delivery || shipTo === undefined || delivery.countryCode === null) return null;
  if (!basketCheckout.takesAddressCountry(delivery.method.kind) || delivery.countryCode === shipTo) return null;
  return { field: 'shippingCountryNavCode', messageKey: 'checkout.deliveryCountryDiffers', params: { country: delivery.countryCode } };
}
