import { circuitBreaker, PausedError, type CircuitBreaker } from '../../infra/circuit-breaker.js';
import type { Clock } from '../../infra/clock.js';
import type { Logger } from '../../infra/logger.js';
import {
  GatewayRefusedError,
  GatewayUnavailableError,
  isGatewayOutage,
  type GatewayName,
  type PaymentGateway,
  type PaymentStatus,
} from './gateway.js';

/**
 * The pause of each gateway's payment look-ups that anyone may cause: callbacks, and shoppers'
 * returns from an order's payment page or a card's. The first look-up that meets the gateway down
 * (isGatewayOutage) pauses them all for `pauseMs` (PAYMENT_CALLBACK_GATEWAY_PAUSE); meanwhile none
 * asks it, and afterwards one at a time asks until one is answered. One per process, shared by the
 * orders' and the subscriptions' routes: a return that meets the outage spares the callbacks the
 * look-ups, and the other way round.
 */
export type LookUpPauses = (gateway: GatewayName) => CircuitBreaker;

export function lookUpPauses(clock: Clock, pauseMs: number, log: Pick<Logger, 'warn' | 'error'>): LookUpPauses {
  const paused = new Map<GatewayName, CircuitBreaker>();
  // A refusal of the shop itself lasts until an operator puts the setup right (the error says what to
  // check: the credentials, or EVERYPAY_API_URL); an outage passes by itself.
  const logPause = (gateway: GatewayName, error: unknown) =>
    error instanceof GatewayRefusedError
      ? log.error({ err: error, gateway, pauseMs }, "payment look-ups paused: the gateway refuses the shop's own requests")
      : log.warn({ err: error, gateway, pauseMs }, 'payment look-ups paused: the gateway is unavailable');
  return (name) => {
    let breaker = paused.get(name);
    if (!breaker) paused.set(name, (breaker = circuitBreaker(clock, pauseMs, (error) => logPause(name, error))));
    return breaker;
  };
}

/**
 * The payment's status looked up through its gateway's pause: PausedError while the pause lasts, the
 * gateway's own errors otherwise; an outage or a refusal of the shop (isGatewayOutage) starts a pause.
 */
export function pausedLookUp(pauses: LookUpPauses, gateway: PaymentGateway, reference: string): Promise<PaymentStatus | null> {
  return pauses(gateway.name).run(() => gateway.fetchStatus(reference), isGatewayOutage);
}

/**
 * A shopper's return: the payment's status, or null when the gateway does not know it or cannot answer
 * now (paused, down, refusing): the return then leaves things as they are for the callback, and never
 * answers a person's browser with an error for the gateway's sake.
 */
export async function lookUpOnReturn(pauses: LookUpPauses, gateway: PaymentGateway, reference: string): Promise<PaymentStatus | null> {
  try {
    return await pausedLookUp(pauses, gateway, reference);
  } catch (error) {
    if (error instanceof PausedError || error instanceof GatewayUnavailableError || error instanceof GatewayRefusedError) return null;
    throw error;
  }
}
