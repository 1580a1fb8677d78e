import { fullFormats } from 'ajv-formats/dist/formats.js';
import { invalidField } from './domain-error.js';

const EMAIL = fullFormats.email as RegExp;

/**
 * Whether `value` is an address the API itself takes (its schemas' `format: 'email'`, checked by
 * ajv-formats, and at most 254 characters): what an operator's command takes too, so that an address
 * set by hand is one a customer could have given.
 */
export function isEmailAddress(value: string): boolean {
  return value.length <= 254 && EMAIL.test(value);
}

/**
 * An email address as it is stored, keyed and compared everywhere: without surrounding whitespace and
 * lower-cased as a whole (the local part too: no mail system we deal with tells addresses apart by case,
 * and one person typing their address in two cases must stay one person).
 */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

// Providers that ignore dots in the local part: one Gmail inbox answers to every dotted spelling.
const DOTLESS_DOMAINS: Record<string, string> = { 'gmail.com': 'gmail.com', 'googlemail.com': 'gmail.com' };

/**
 * The inbox an address reaches, as the key of a per-address limit on what is mailed or asked for.
 * Mail systems deliver `name+anything@` to `name@` (sub-addressing, RFC 5233) and Gmail ignores dots,
 * so `v+1@gmail.com` ... `v+9@gmail.com` and `v.i@gmail.com` are one inbox: keyed by the address as
 * typed, each variant had a cap of its own and one inbox could be sent any number of mails. Only a
 * key: the address is stored and mailed as given.
 */
export function mailboxKey(email: string): string {
  const address = normaliseEmail(email);
  const at = address.lastIndexOf('@');
  if (at <= 0) return address;
  const domain = address.slice(at + 1);
  let local = address.slice(0, at);
  const plus = local.indexOf('+');
  if (plus > 0) local = local.slice(0, plus);
  const dotless = DOTLESS_DOMAINS[domain];
  return dotless === undefined ? `${local}@${domain}` : `${local.replaceAll('.', '')}@${dotless}`;
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
