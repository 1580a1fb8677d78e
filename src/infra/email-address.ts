/**
 * An email address as it is stored, keyed and compared everywhere: without surrounding whitespace and
 * lower-cased as a whole (the local part too: no mail system we deal with tells addresses apart by case,
 * and one person typing their address in two cases must stay one person).
 */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}
