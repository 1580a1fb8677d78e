import { sql } from 'kysely';
import { expect } from 'vitest';
import { lockWaiters, until } from '../helpers/lock-waits.js';
import type { TestApp } from '../helpers/test-app.js';
import type { Who } from '../basket/helpers.js';
import { checkout, checkoutForm, stockedBook, type Shop } from './helpers.js';

// The interleaving that ended a checkout on a deadlock beside a writer of several products' rows
// (PostgreSQL). A checkout holds its products' stock in id order; an UPDATE ... WHERE id IN (...)
// locks its rows in the order its plan meets them, on a small table the heap's, which is not the ids'
// once a row was rewritten (its new version is written after the others). With A's row rewritten
// after B's and X's, a writer that does not take its rows in id order first holds B, waits on X
// (held here by the test, as any write of it holds it), then wants A, which a checkout of A and B holds
// while it waits for B: PostgreSQL ends one of them.

/**
 * Three stocked books A < B < X, given to `prepare` (a write of all three rewrites them in id order),
 * then A's row rewritten so that its live version lies after B's and X's in the heap.
 */
export async function productsOutOfHeapOrder(
  t: TestApp,
  shop: Shop,
  prepare: (ids: { a: number; b: number; x: number }) => Promise<unknown> = async () => {},
): Promise<{ a: number; b: number; x: number }> {
  const a = await stockedBook(t, shop, 5);
  const b = await stockedBook(t, shop, 5);
  const x = await stockedBook(t, shop, 5);
  expect(a < b && b < x).toBe(true);
  await prepare({ a, b, x });
  await sql`update product set updated_at = updated_at + 1 where id = ${a}`.execute(t.database.db);
  return { a, b, x };
}

/** Whether another transaction holds the product's row (a lock probe that does not wait). */
export async function lockedByOthers(t: TestApp, id: number): Promise<boolean> {
  try {
    await t.database.db.transaction().execute((trx) => sql`select id from product where id = ${id} for no key update nowait`.execute(trx));
    return false;
  } catch (error) {
    if ((error as { code?: string }).code === '55P03') return true;
    throw error;
  }
}

/**
 * Holds X's row, starts `writer` (named `what`), which must then wait on X holding A and B; starts
 * `who`'s checkout (basket of A and B), which must wait on the writer; lets X go. The checkout's answer
 * once the writer ended too (a writer that failed fails the test).
 */
export async function checkoutBesideWriterWaitingOnX(
  t: TestApp,
  shop: Shop,
  who: Who,
  { a, b, x }: { a: number; b: number; x: number },
  what: string,
  writer: () => Promise<unknown>,
): Promise<Awaited<ReturnType<typeof checkout>>> {
  const db = t.database.db;
  const hold = await db.startTransaction().execute();
  let writerEnded = false;
  let written: Promise<unknown> | undefined;
  let answer: Awaited<ReturnType<typeof checkout>> | undefined;
  let request: Promise<void> | undefined;
  try {
    await sql`select id from product where id = ${x} for no key update`.execute(hold);
    written = writer().finally(() => void (writerEnded = true));
    await until(`${what} to wait on X`, async () => writerEnded || (await lockWaiters(db)) >= 1);
    expect(writerEnded).toBe(false);
    // The writer holds what it took before X: A too (lower id than B), or the checkout below deadlocks.
    expect(await lockedByOthers(t, b)).toBe(true);
    expect(await lockedByOthers(t, a)).toBe(true);
    request = checkout(t, who, checkoutForm(shop)).then((response) => void (answer = response));
    await until(`the checkout to wait on ${what}`, async () => answer !== undefined || (await lockWaiters(db)) >= 2);
    await hold.commit().execute();
  } catch (error) {
    await hold.rollback().execute();
    throw error;
  }
  await request;
  await written;
  return answer!;
}
