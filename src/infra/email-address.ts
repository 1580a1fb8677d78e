import { invalidField } from './domain-error.js';

/**
 * An email address as it is stored, keyed and compared everywhere: without surrounding whitespace and
 * lower-cased as a whole (the local part too: no mail system we deal with tells addresses apart by case,
 * and one person typing their address in two cases must stay one person).
 */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

// Addresses nobody receives mail at (RFC 2606, RFC 6761): a registration must never take one (the
// social module keeps users whose provider gave no email under `<provider>.<subject>@users.invalid`),
// and a confirmation mailed to one (a newsletter's, a back-in-stock request's) could never arrive.
// Here rather than in accounts, which owns registration: the newsletter, which accounts builds on,
// refuses them too.
const RESERVED_TOP_LEVEL_DOMAINS = new Set(['invalid', 'test', 'example', 'localhost']);
const RESERVED_DOMAINS = ['example.com', 'example.net', 'example.org'];

/** True for an address under a reserved top-level domain or example.com/net/org (and their subdomains). */
export function hasReservedDomain(email: string): boolean {
  const domain = normaliseEmail(email).split('@').pop()!.replace(/\.+$/, '');
  if (RESERVED_TOP_LEVEL_DOMAINS.has(domain.split('.').pop()!)) return true;
  return RESERVED_DOMAINS.some((reserved) => domain === reserved || domain.endsWith(`.${reserved}`));
}

/** The 422 on `field` for an address no mail can reach. */
export function refuseReservedEmail(field: string, email: string): void {
  if (hasReservedDomain(email)) throw invalidField(field, 'email.reservedDomain');
}
