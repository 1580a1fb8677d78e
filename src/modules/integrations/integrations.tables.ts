// Suppliers that push feeds, webhook endpoints and their deliveries, and pull-feed clients.
// Conventions of every table: src/db/schema.ts.
import type { Generated } from 'kysely';

export interface SupplierTable {
  id: Generated<number>;
  code: string;
  name: string;
  /** The HMAC key as given to the supplier (a signature is checked by computing it again). */
  secret: string;
  /** The kill switch: while set, the supplier's requests are refused. */
  disabled_at: number | null;
  secret_rotated_at: number;
  created_at: number;
}

/** Signatures accepted lately: the same request sent again is a replay. */
export interface SupplierRequestTable {
  supplier_id: number;
  signature: string;
  received_at: number;
}

export interface WebhookEndpointTable {
  id: Generated<number>;
  name: string;
  url: string;
  secret: string;
  /** `*`, or comma-separated types and prefixes ending in a dot (`customer.,order.created`). */
  event_types: string;
  max_attempts: number;
  /** The last event position fanned out into this endpoint's deliveries. */
  fanned_position: number;
  created_at: number;
  /** While set, nothing is fanned out to the endpoint or sent to it; `disabled_reason` tells the operator why. */
  disabled_at: number | null;
  disabled_reason: string | null;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'dead';

export interface WebhookDeliveryTable {
  id: Generated<number>;
  endpoint_id: number;
  event_id: number;
  stream: string;
  position: number;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  delivered_at: number | null;
  created_at: number;
  updated_at: number;
}

/** The delivery log: one row per attempt. */
export interface WebhookAttemptTable {
  id: Generated<number>;
  delivery_id: number;
  attempt: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  created_at: number;
}

export interface EventFeedClientTable {
  id: Generated<number>;
  name: string;
  /** SHA-256 of the bearer token, hex. */
  token_hash: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

export interface IntegrationsTables {
  supplier: SupplierTable;
  supplier_request: SupplierRequestTable;
  webhook_endpoint: WebhookEndpointTable;
  webhook_delivery: WebhookDeliveryTable;
  webhook_attempt: WebhookAttemptTable;
  event_feed_client: EventFeedClientTable;
}
