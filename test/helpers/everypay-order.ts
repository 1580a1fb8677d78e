import { expect } from 'vitest';
import type { SentCallback } from './everypay-callbacks.js';
import type { EveryPayServer } from './everypay-server.js';

// A payment is told to the shop twice: by the shop's own call to EveryPay (or the shopper's return,
// which asks EveryPay) and by EveryPay's callback. The tests of both orders force each order instead
// of leaving it to a race.

export type CallbackOrder = 'answer first' | 'callback first';
export const CALLBACK_ORDERS: CallbackOrder[] = ['answer first', 'callback first'];

/**
 * Runs `action` (which makes the shop call EveryPay at `path`) with EveryPay's callbacks held: until the
 * action is done ('answer first'), or until that call of it, which is answered only once they were
 * delivered and applied ('callback first'). `prepare` runs first with the callbacks held too (the
 * shopper on EveryPay's page). Answers the action's result and the callbacks sent meanwhile.
 */
export async function inOrder<T>(
  everypay: EveryPayServer,
  order: CallbackOrder,
  path: string,
  action: () => Promise<T>,
  prepare?: () => Promise<unknown>,
): Promise<{ result: T; sent: SentCallback[] }> {
  // The callbacks of the steps before (the card saved, the first month) are not this payment's.
  await everypay.callbacksIdle();
  const from = everypay.callbacks.length;
  everypay.holdCallbacks();
  await prepare?.();
  if (order === 'callback first') everypay.answerAfterCallbacks({ path });
  const result = await action();
  if (order === 'answer first') {
    // Nothing reached the shop before the answer was applied.
    expect(everypay.callbacks.slice(from)).toEqual([]);
    await everypay.releaseCallbacks();
  } else {
    // The callback was answered before EveryPay answered the call.
    expect(everypay.callbacks.slice(from).map((callback) => callback.status)).toEqual([200]);
  }
  await everypay.callbacksIdle();
  return { result, sent: everypay.callbacks.slice(from) };
}

/** Each callback's HTTP status and the shop's answer. */
export const answers = (sent: SentCallback[]) => sent.map((callback) => [callback.status, JSON.parse(callback.answer ?? 'null')]);
