import type { Customer, CustomerKind } from '../pricing/index.js';
import type { CallerDiscounts } from './caller.repository.js';

/** Who is looking at the catalogue: what they may see and what they pay. */
export interface Caller {
  kind: CustomerKind;
  /** The client account's public code; null for a guest. */
  clientCode: string | null;
  clientAccountId: number | null;
  /** The company of a business or wholesale account (its custom prices). */
  companyId: number | null;
  clientDiscountPercent: number;
  companyDiscountPercent: number;
}

export const GUEST: Caller = {
  kind: 'GUEST',
  clientCode: null,
  clientAccountId: null,
  companyId: null,
  clientDiscountPercent: 0,
  companyDiscountPercent: 0,
};

/** Business and wholesale customers see the business catalogue; everybody else the public one. */
export function seesBusinessCatalogue(caller: Caller): boolean {
  return caller.kind === 'BUSINESS' || caller.kind === 'WHOLESALE';
}

export function pricingCustomer(caller: Caller, companyCustomPriceCents?: number | null): Customer {
  return {
    kind: caller.kind,
    clientDiscountPercent: caller.clientDiscountPercent,
    companyDiscountPercent: caller.companyDiscountPercent,
    companyCustomPriceCents,
  };
}

/** The client account behind a valid bearer token: its role and codes. */
export interface ClientIdentity {
  role: Exclude<CustomerKind, 'GUEST'>;
  clientCode: string;
  clientAccountId: number;
}

/** The caller of a client account, with the account's and its company's discounts (none when unknown). */
export function clientCaller(client: ClientIdentity, discounts: CallerDiscounts | undefined): Caller {
  return {
    kind: client.role,
    clientCode: client.clientCode,
    clientAccountId: client.clientAccountId,
    companyId: discounts?.company_id ?? null,
    clientDiscountPercent: discounts?.client_discount ?? 0,
    companyDiscountPercent: discounts?.company_discount ?? 0,
  };
}
