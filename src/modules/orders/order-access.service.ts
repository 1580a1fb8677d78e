import type { Db } from '../../db/database.js';
import { DomainError, notFound, unauthenticated } from '../../infra/domain-error.js';
import type { WrongGuesses } from '../../infra/wrong-guesses.js';
import type { OrderChecksum } from './checksum.js';
import { findOrderByCode, type OrderRow } from './orders.repository.js';

// Who may see an order: the client who placed it, or whoever holds the order id's checksum (the
// link a guest got with its payment). Anything else, like an order of another client or store or
// a wrong checksum, is the same 404 as an unknown code, so codes tell nobody which orders exist.

export interface OrderReader {
  clientAccountId: number | null;
  storeCode: string;
  checksum: string | undefined;
}

/** Who asks for an order: the request's caller and store, with the checksum its link carried, if any. */
export function orderReader(
  context: { caller: { clientAccountId: number | null }; store: { code: string } },
  checksum: string | undefined,
): OrderReader {
  return { clientAccountId: context.caller.clientAccountId, storeCode: context.store.code, checksum };
}

export async function readableOrder(db: Db, checksum: OrderChecksum, reader: OrderReader, code: string): Promise<OrderRow> {
  const order = await findOrderByCode(db, code);
  if (!order || order.store_code !== reader.storeCode) throw notFound('checkout.orderNotFound');
  const own = reader.clientAccountId !== null && order.client_account_id === reader.clientAccountId;
  if (own || (reader.checksum !== undefined && checksum.verify(order.id, reader.checksum))) return order;
  throw notFound('checkout.orderNotFound');
}

/** The logged-in client's account id; a guest has no order list or purchase history (401). */
export function loggedInClient(clientAccountId: number | null): number {
  if (clientAccountId === null) throw unauthenticated('checkout.loginRequired');
  return clientAccountId;
}

/**
 * A read made with a checksum is a guest's link: the 404 of a wrong checksum or an unknown code counts against
 * the address (infra/wrong-guesses.ts), after the work's transaction. One without is the caller's own.
 */
export function guardedByChecksum(guesses: WrongGuesses) {
  return <T>(request: { ip: string; actionTime: number; query: { checksum?: string } }, read: () => Promise<T>): Promise<T> =>
    request.query.checksum === undefined
      ? read()
      : guesses.checked(
          request.ip,
          request.actionTime,
          read,
          (error) => error instanceof DomainError && error.messageKey === 'checkout.orderNotFound',
        );
}
