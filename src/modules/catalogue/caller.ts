import type { FastifyRequest } from 'fastify';
import type { DatabaseHandle } from '../../db/database.js';
import { preparedQuery } from '../../db/prepared.js';
import { authenticate } from '../../http/auth.js';
import type { Customer, CustomerKind } from '../pricing/pricing.js';

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

export type CallerResolver = (request: FastifyRequest) => Promise<Caller>;

/**
 * The caller of a catalogue request: a guest without `Authorization`, else the token's client
 * account (a bad, expired or other-store token is a 401, as on every authenticated route: a client
 * that sends a token expects its own prices, and silently showing guest prices would mislead).
 */
export function callerResolver(database: DatabaseHandle): CallerResolver {
  const discounts = preparedQuery(database, (db, clientAccountId: number) =>
    db
      .selectFrom('client_account')
      .leftJoin('company', 'company.id', 'client_account.company_id')
      .select(['client_account.discount_percent as client_discount', 'company.id as company_id', 'company.discount_percent as company_discount'])
      .where('client_account.id', '=', clientAccountId),
  );
  return async (request) => {
    if (request.headers.authorization === undefined) return GUEST;
    const principal = await authenticate(database.db, request);
    const [row] = await discounts(principal.clientAccountId);
    return {
      kind: principal.role,
      clientCode: principal.clientCode,
      clientAccountId: principal.clientAccountId,
      companyId: row?.company_id ?? null,
      clientDiscountPercent: row?.client_discount ?? 0,
      companyDiscountPercent: row?.company_discount ?? 0,
    };
  };
}
