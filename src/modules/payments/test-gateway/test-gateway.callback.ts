// The test gateway's notification to the shop, as a provider sends it: a real HTTP POST to the
// callback URL the shop gave, after the shopper's answer, retried a few times when the shop cannot
// be reached or answers with an error. It never throws: a lost callback is logged, and the shop
// still learns the outcome from the shopper's return or by asking for the status.

export interface CallbackPayload {
  payment_reference: string;
  order_reference: string;
  event_name: 'status_updated';
}

export interface CallbackLog {
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

export interface CallbackSender {
  /** Starts the delivery and returns at once. */
  send(url: string, payload: CallbackPayload): void;
  /** Stops deliveries still waiting for a retry and waits for those in flight to end. */
  close(): Promise<void>;
}

/** Waits before the 2nd, 3rd and 4th attempt. */
export const CALLBACK_RETRY_DELAYS_MS = [200, 800, 3200];
const ATTEMPT_TIMEOUT_MS = 5000;

export function createCallbackSender(log: CallbackLog, retryDelaysMs: readonly number[] = CALLBACK_RETRY_DELAYS_MS): CallbackSender {
  const stopping = new AbortController();
  const inFlight = new Set<Promise<void>>();

  const deliver = async (url: string, payload: CallbackPayload): Promise<void> => {
    const body = JSON.stringify(payload);
    for (let attempt = 0; attempt <= retryDelaysMs.length; attempt += 1) {
      if (attempt > 0 && !(await sleep(retryDelaysMs[attempt - 1]!, stopping.signal))) return;
      const failure = await post(url, body, stopping.signal);
      if (failure === undefined) return;
      if (stopping.signal.aborted) return;
      const details = { paymentReference: payload.payment_reference, attempt: attempt + 1, failure };
      if (attempt === retryDelaysMs.length) {
        log.error(details, 'test gateway: callback not delivered, giving up');
        return;
      }
      log.warn(details, 'test gateway: callback failed, retrying');
    }
  };

  return {
    send(url, payload) {
      const delivery = deliver(url, payload).catch((error: unknown) => {
        log.error({ err: error, paymentReference: payload.payment_reference }, 'test gateway: callback delivery broke');
      });
      inFlight.add(delivery);
      void delivery.finally(() => inFlight.delete(delivery));
    },
    async close() {
      stopping.abort();
      await Promise.all(inFlight);
    },
  };
}

/** One attempt; answers why it failed, or undefined when the shop took it (2xx). */
async function post(url: string, body: string, stop: AbortSignal): Promise<string | undefined> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      redirect: 'manual',
      signal: AbortSignal.any([stop, AbortSignal.timeout(ATTEMPT_TIMEOUT_MS)]),
    });
    // The body is not needed, but reading it lets the connection be reused.
    await response.arrayBuffer().catch(() => undefined);
    return response.ok ? undefined : `HTTP ${response.status}`;
  } catch (error) {
    return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  }
}

/** Resolves true after `ms`, or false as soon as `stop` is aborted. */
function sleep(ms: number, stop: AbortSignal): Promise<boolean> {
  if (stop.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      stop.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    stop.addEventListener('abort', onAbort, { once: true });
  });
}
