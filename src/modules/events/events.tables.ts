// The outbox of events for partner integrations. Conventions of every table: src/db/schema.ts.
import type { Generated } from 'kysely';

export interface IntegrationEventTable {
  id: Generated<number>;
  /** `customer.created`, `consent.changed`, `order.status-changed`, `product.changed`, ... */
  type: string;
  /** What the events are ordered by: `customer:<user id>`, `email:<address>`, `product:<code>`. */
  stream: string;
  /** 1, 2, 3, ... within the stream, in the order the writers committed. */
  sequence: number;
  /** The pull feed's cursor; null until the sequencer hands one out after commit. */
  position: number | null;
  /** JSON of the event's data. */
  data: string;
  created_at: number;
}

export interface IntegrationStreamTable {
  stream: string;
  last_sequence: number;
}

export interface IntegrationCursorTable {
  name: string;
  position: number;
}

export interface EventsTables {
  integration_event: IntegrationEventTable;
  integration_stream: IntegrationStreamTable;
  integration_cursor: IntegrationCursorTable;
}
