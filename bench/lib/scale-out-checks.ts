import type { Kysely } from 'kysely';
import type { ParsedMail } from 'mailparser';
import type { Database } from '../../src/db/schema.js';

// What the scale-out run checks once the load has stopped and the workers have drained the queue:
// each answers a line for the report and whether it held.

export interface Check {
  name: string;
  passed: boolean;
  detail: string;
}

/** No job ran twice: with nothing failing on purpose, every finished job took one attempt and none died. */
export async function jobsRanOnce(db: Kysely<Database>): Promise<Check> {
  const rows = await db.selectFrom('job').select(['status', 'attempts', 'last_error']).where('status', '!=', 'pending').execute();
  const done = rows.filter((r) => r.status === 'done');
  const twice = done.filter((r) => r.attempts > 1 && r.last_error === null).length;
  const retried = done.filter((r) => r.attempts > 1 && r.last_error !== null).length;
  const dead = rows.filter((r) => r.status === 'dead').length;
  const running = rows.filter((r) => r.status === 'running').length;
  return {
    name: 'no job ran twice',
    passed: twice === 0 && dead === 0 && running === 0,
    detail: `${done.length} jobs done, ${twice} claimed twice, ${retried} retried after an error, ${dead} dead, ${running} still running`,
  };
}

/** No mail was sent twice, and every registration and order got its mail. */
export function mailsOnce(mails: readonly ParsedMail[], registered: readonly string[], buyers: readonly string[]): Check {
  const seen = new Map<string, number>();
  const recipients = new Set<string>();
  for (const mail of mails) {
    const to = (Array.isArray(mail.to) ? mail.to : [mail.to]).flatMap((a) => a?.value.map((v) => v.address ?? '') ?? []).join(',');
    recipients.add(to);
    const key = `${to}|${mail.subject ?? ''}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  const twice = [...seen.values()].filter((n) => n > 1).length;
  const missing = [...registered, ...buyers].filter((email) => !recipients.has(email)).length;
  return {
    name: 'no mail sent twice, none missing',
    passed: twice === 0 && missing === 0,
    detail: `${mails.length} mails, ${twice} sent twice, ${missing} of ${registered.length} registrations and ${buyers.length} orders without a mail`,
  };
}

/** Every paid order was processed once: done, one move to PROCESSING, one hand-off to the back office. */
export async function ordersProcessedOnce(
  db: Kysely<Database>,
  orderIds: readonly number[],
  handoffs: ReadonlyMap<string, number>,
): Promise<Check> {
  if (orderIds.length === 0) return { name: 'every order processed once', passed: false, detail: 'no order was bought' };
  const orders = await db
    .selectFrom('customer_order')
    .select(['id', 'code', 'status'])
    .where('id', 'in', [...orderIds])
    .execute();
  const moves = await db
    .selectFrom('order_status_change')
    .select(['order_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('order_id', 'in', [...orderIds])
    .where('to_status', '=', 'PROCESSING')
    .groupBy('order_id')
    .execute();
  const processing = new Map(moves.map((m) => [Number(m.order_id), Number(m.n)]));
  const unfinished = orders.filter((o) => o.status !== 'COMPLETED' && o.status !== 'PENDING_NAV_PROCESSING').length;
  const notOnce = orders.filter((o) => processing.get(Number(o.id)) !== 1).length;
  const handedOffTwice = orders.filter((o) => (handoffs.get(o.code ?? '') ?? 0) > 1).length;
  const notHandedOff = orders.filter((o) => !handoffs.has(o.code ?? '')).length;
  return {
    name: 'every order processed once',
    passed: orders.length === orderIds.length && unfinished === 0 && notOnce === 0 && handedOffTwice === 0 && notHandedOff === 0,
    detail:
      `${orders.length} orders: ${unfinished} unfinished, ${notOnce} not moved to PROCESSING exactly once, ` +
      `${notHandedOff} not handed off, ${handedOffTwice} handed off twice`,
  };
}

/** The database-backed limit held across processes: no more requests got through than the limit lets. */
export function rateLimitHeld(statuses: readonly number[], max: number): Check {
  const through = statuses.filter((s) => s !== 429).length;
  const refused = statuses.length - through;
  return {
    name: 'rate limit held across the APIs',
    passed: through <= max && refused > 0,
    detail: `${statuses.length} sign-in attempts from one address spread over the APIs: ${through} let through (limit ${max}), ${refused} refused`,
  };
}
