import { invalidField } from '../../infra/domain-error.js';
import { normaliseEmail } from '../../infra/email-address.js';

// Addresses nobody receives mail at. The social module keeps users whose provider gave no email
// under `<provider>.<subject>@users.invalid`: a registration must never take such an address,
// and a mail to a reserved domain would never arrive anyway (RFC 2606, RFC 6761).
const RESERVED_TOP_LEVEL_DOMAINS = new Set(['invalid', 'test', 'example', 'localhost']);
const RESERVED_DOMAINS = ['example.com', 'example.net', 'example.org'];

/** True for an address under a reserved top-level domain or example.com/net/org (and their subdomains). */
export function hasReservedDomain(email: string): boolean {
  const domain = normaliseEmail(email).split('@').pop()!.replace(/\.+$/, '');
  if (RESERVED_TOP_LEVEL_DOMAINS.has(domain.split('.').pop()!)) return true;
  return RESERVED_DOMAINS.some((reserved) => domain === reserved || domain.endsWith(`.${reserved}`));
}

/** The 422 on `field` for an address a user may not register with. */
export function refuseReservedEmail(field: string, email: string): void {
  if (hasReservedDomain(email)) throw invalidField(field, 'email.reservedDomain');
}
