// The callbacks (notifications) of the local EveryPay server: real HTTP POSTs to the callback URL
// that EveryPay keeps in the merchant portal (one per shop, not per payment). A callback only names
// a payment (payment_reference, order_reference, event_name); the shop must fetch the status itself.

export interface SentCallback {
  url: string;
  /** The fields as sent (form-urlencoded or JSON, as the server was told). */
  fields: Record<string, string>;
  /** The shop's HTTP status, or null when the request failed (the error says why). */
  status: number | null;
  /** The shop's answer, as text (its JSON says what the shop made of the callback). */
  answer?: string;
  error?: string;
}

export interface CallbackOptions {
  /** Sends the same callback this many times at once (EveryPay retries; a shop must apply it once). */
  times?: number;
  /** Sends it this late (a callback that arrives after the shopper's return, or after a newer one). */
  delayMs?: number;
  /** event_name; EveryPay's own for the change when left out. */
  eventName?: string;
}

export type CallbackFormat = 'form' | 'json';

interface Held {
  fields: Record<string, string>;
  options: CallbackOptions;
}

export class CallbackSender {
  readonly sent: SentCallback[] = [];
  url: string | null;
  private held: Held[] | null = null;
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    url: string | undefined,
    private readonly format: CallbackFormat,
  ) {
    this.url = url ?? null;
  }

  /** Sends (or holds) a callback; resolves when every copy has been answered. */
  send(fields: Record<string, string>, options: CallbackOptions = {}): Promise<SentCallback[]> {
    if (this.held) {
      this.held.push({ fields, options });
      return Promise.resolve([]);
    }
    const delivery = this.deliver(fields, options);
    this.inFlight.add(delivery);
    void delivery.finally(() => this.inFlight.delete(delivery));
    return delivery;
  }

  /** From now on callbacks wait until release(): to send them late or in another order. */
  hold(): void {
    this.held ??= [];
  }

  /** Sends the held callbacks one after another, in the order they were made or reversed. */
  async release(order: 'made' | 'reversed' = 'made'): Promise<SentCallback[]> {
    const held = this.held ?? [];
    this.held = null;
    if (order === 'reversed') held.reverse();
    const sent: SentCallback[] = [];
    for (const { fields, options } of held) sent.push(...(await this.send(fields, options)));
    return sent;
  }

  /** Sends the held callbacks (and holds no more), then waits until every callback on its way has been answered. */
  async flush(): Promise<void> {
    if (this.held) await this.release();
    await this.idle();
  }

  /** Resolves when every callback on its way has been answered. */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private async deliver(fields: Record<string, string>, options: CallbackOptions): Promise<SentCallback[]> {
    const url = this.url;
    if (url === null) return [];
    if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
    const times = Math.max(1, options.times ?? 1);
    return Promise.all(Array.from({ length: times }, () => this.post(url, fields)));
  }

  private async post(url: string, fields: Record<string, string>): Promise<SentCallback> {
    const record: SentCallback = { url, fields, status: null };
    try {
      const body = this.format === 'json' ? JSON.stringify(fields) : new URLSearchParams(fields).toString();
      const contentType = this.format === 'json' ? 'application/json' : 'application/x-www-form-urlencoded';
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': contentType, 'user-agent': 'EveryPay-test-callback' },
        body,
        signal: AbortSignal.timeout(5000),
      });
      record.answer = await response.text();
      record.status = response.status;
    } catch (err) {
      record.error = err instanceof Error ? err.message : String(err);
    }
    this.sent.push(record);
    return record;
  }
}
