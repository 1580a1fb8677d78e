import type { Db } from '../../db/database.js';
import { normaliseEmail } from '../email-address.js';
import { hmacHex, sharedSecret } from '../secrets.js';

// Bounces that come after the server took the mail. A relay (the shop's provider, an ISP's smarthost)
// accepts nearly every mail and learns only later, from the recipient's own server, that the mailbox
// does not exist; it then mails a delivery status notification (RFC 3464) to the envelope sender.
// With MAIL_BOUNCE_ADDRESS (`bounces@shop.example`) each mail to one address goes out with the
// envelope sender `bounces+<tag>@shop.example`, the tag an HMAC of the recipient (VERP, keyed). The
// mail server hands what comes back to `storefront mail bounce` (README, Accounts and mail), which
// keeps a recipient as refused only when the notice says the mailbox does not exist and the tag is
// that recipient's: anyone may send a forged notice to the bounce address, nobody can tag one.

/** RFC 3463 codes of an address that is no good (mailer.ts says which and why): no such mailbox, domain, ... */
export const NO_SUCH_MAILBOX_CODE = String.raw`5\.(?:1\.(?:1|2|3|6|10)|2\.1)`;
const NO_SUCH_MAILBOX_STATUS = new RegExp(`^${NO_SUCH_MAILBOX_CODE}$`);

/** Hex digits of the tag: 128 bits. The local part of the bounce address keeps 64 - 33 characters for itself. */
const TAG_LENGTH = 32;
export const BOUNCE_LOCAL_PART_MAX = 64 - TAG_LENGTH - 1;

/** MAIL_BOUNCE_SECRET, else the one the service made and keeps (app_secret): the worker and `mail bounce` agree on it. */
export function bounceSecret(db: Db, configured: string | undefined, now: number): Promise<string> {
  return sharedSecret(db, 'mail-bounce', configured, now);
}

function tagOf(secret: string, recipient: string): string {
  return hmacHex(secret, `mail-bounce:${normaliseEmail(recipient)}`).slice(0, TAG_LENGTH);
}

/** The envelope sender of a mail to `recipient`: the bounce address with the recipient's tag. */
export function bounceSenderFor(bounceAddress: string, secret: string, recipient: string): string {
  const at = bounceAddress.lastIndexOf('@');
  return `${bounceAddress.slice(0, at)}+${tagOf(secret, recipient)}${bounceAddress.slice(at)}`;
}

/** The tag of `address` when it is the bounce address with one (`bounces+<tag>@shop.example`), else undefined. */
function tagIn(bounceAddress: string, address: string): string | undefined {
  const at = bounceAddress.lastIndexOf('@');
  const [local, domain] = [bounceAddress.slice(0, at).toLowerCase(), bounceAddress.slice(at + 1).toLowerCase()];
  const match = /^<?\s*([^\s<>@]+)@([^\s<>@]+?)\s*>?$/.exec(address.trim());
  if (!match || match[2]!.toLowerCase() !== domain) return undefined;
  const given = match[1]!.toLowerCase();
  if (!given.startsWith(`${local}+`)) return undefined;
  const tag = given.slice(local.length + 1);
  return /^[0-9a-f]+$/.test(tag) && tag.length === TAG_LENGTH ? tag : undefined;
}

/** One recipient's block of a delivery status notification. */
export interface RecipientStatus {
  action: string;
  status: string;
  /**
   * Final-Recipient, when of type rfc822 (normalised): the mailbox that does not exist. Not
   * Original-Recipient: a mail to an alias (team@) expanded to several mailboxes reports the one that
   * left as final and the alias as original, and the alias still works.
   */
  addresses: string[];
}

export type BounceVerdict =
  | { kind: 'refused'; addresses: string[] }
  | {
      kind: 'ignored';
      reason:
        'not a delivery status notification' | 'not sent to the bounce address' | 'no mailbox refused for good' | 'tag does not match';
    };

/**
 * What a mail that reached the bounce address says: which of its recipients' addresses do not exist.
 * `sentTo`: where the MTA says it delivered it (its envelope recipient, when the pipe gives it); the
 * message's own X-Original-To, Delivered-To and To headers are tried after them. The first tagged one counts.
 */
export function judgeBounce(
  raw: string,
  options: { bounceAddress: string; secret: string; sentTo?: ReadonlyArray<string | undefined> },
): BounceVerdict {
  const message = parseEntity(raw);
  const candidates = [
    ...(options.sentTo ?? []),
    ...['x-original-to', 'delivered-to', 'to'].flatMap((name) => message.headers.get(name) ?? []),
  ];
  const tag = candidates.map((address) => (address === undefined ? undefined : tagIn(options.bounceAddress, address))).find(Boolean);
  if (tag === undefined) return { kind: 'ignored', reason: 'not sent to the bounce address' };
  const report = deliveryStatus(message);
  if (report === undefined) return { kind: 'ignored', reason: 'not a delivery status notification' };
  const refused = report.filter((recipient) => recipient.action === 'failed' && NO_SUCH_MAILBOX_STATUS.test(recipient.status));
  if (refused.length === 0) return { kind: 'ignored', reason: 'no mailbox refused for good' };
  const addresses = [...new Set(refused.flatMap((recipient) => recipient.addresses))].filter(
    (address) => tagOf(options.secret, address) === tag,
  );
  return addresses.length > 0 ? { kind: 'refused', addresses } : { kind: 'ignored', reason: 'tag does not match' };
}

interface Entity {
  /** Lower-cased names; a repeated header keeps every value. */
  headers: Map<string, string[]>;
  body: string;
}

function parseEntity(raw: string): Entity {
  const text = raw.replace(/\r\n/g, '\n');
  const end = text.indexOf('\n\n');
  const head = end < 0 ? text : text.slice(0, end);
  const headers = new Map<string, string[]>();
  for (const line of head.replace(/\n[ \t]+/g, ' ').split('\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    // Pushed, not copied: a message of a few hundred thousand repeated header lines (one MB) took the
    // copies quadratic time, hours of a CPU for one mail piped to the command.
    const values = headers.get(name);
    if (values) values.push(value);
    else headers.set(name, [value]);
  }
  return { headers, body: end < 0 ? '' : text.slice(end + 2) };
}

function contentType(entity: Entity): { type: string; boundary: string | undefined } {
  const value = entity.headers.get('content-type')?.[0] ?? 'text/plain';
  const boundary = /;\s*boundary\s*=\s*(?:"([^"]+)"|([^\s;]+))/i.exec(value);
  return { type: value.split(';')[0]!.trim().toLowerCase(), boundary: boundary?.[1] ?? boundary?.[2] };
}

/** The recipients' blocks of the first message/delivery-status part, looked for through nested multiparts. */
function deliveryStatus(entity: Entity, depth = 0): RecipientStatus[] | undefined {
  const { type, boundary } = contentType(entity);
  if (type === 'message/delivery-status') return recipientBlocks(decoded(entity));
  if (!type.startsWith('multipart/') || boundary === undefined || depth > 3) return undefined;
  for (const part of entity.body.split(`\n--${boundary}`).slice(1)) {
    if (part.startsWith('--')) break;
    const found = deliveryStatus(parseEntity(part.replace(/^[^\n]*\n/, '')), depth + 1);
    if (found) return found;
  }
  return undefined;
}

function decoded(entity: Entity): string {
  const encoding = (entity.headers.get('content-transfer-encoding')?.[0] ?? '').toLowerCase();
  if (encoding === 'base64') return Buffer.from(entity.body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') {
    return entity.body.replace(/=\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
  return entity.body;
}

/** RFC 3464: a block of per-message fields, then one block per recipient. */
function recipientBlocks(text: string): RecipientStatus[] {
  const blocks = text
    .replace(/\r\n/g, '\n')
    .split(/\n\s*\n/)
    .map((block) => parseEntity(`${block.trim()}\n\n`).headers)
    .filter((fields) => fields.has('action') || fields.has('final-recipient'));
  return blocks.map((fields) => ({
    action: (fields.get('action')?.[0] ?? '').toLowerCase(),
    // "5.1.1 (bad destination mailbox address)": the code alone.
    status: (fields.get('status')?.[0] ?? '').split(/\s/)[0]!,
    addresses: (fields.get('final-recipient') ?? []).flatMap(rfc822Address),
  }));
}

/** `rfc822; mari@example.com` -> the address (normalised); another address type -> none. */
function rfc822Address(field: string): string[] {
  const [type, ...rest] = field.split(';');
  if (type?.trim().toLowerCase() !== 'rfc822') return [];
  const address = rest.join(';').trim().replace(/^<|>$/g, '');
  return address.includes('@') ? [normaliseEmail(address)] : [];
}
