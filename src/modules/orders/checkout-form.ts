import type { Db } from '../../db/database.js';
import type { InvalidField } from '../../infra/domain-error.js';
import type { basketCheckout } from '../basket/index.js';
import type { CheckoutBody } from './checkout.schemas.js';
import { knownCountries } from './orders.repository.js';

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

/** The form's delivery choice for the basket; null when it names no delivery method. */
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
 * A basket with something to ship needs a delivery method and the whole shipping address, named
 * as the schema names a missing field. One with nothing to ship takes the shipping contact whole
 * or not at all (then the billing contact is the receiver's): half of one is a mistake.
 */
export function shippingProblems(form: CheckoutBody, shipsSomething: boolean, found: readonly InvalidField[]): InvalidField[] {
  const required = (field: string): InvalidField => ({ field, messageKey: 'validation.required', params: { field } });
  const problems: InvalidField[] = [];
  if (shipsSomething && form.deliveryMethodId === undefined) problems.push(required('deliveryMethodId'));
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
