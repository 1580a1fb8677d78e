// Back-in-stock requests: who wants a mail when a product can be bought again.
// Conventions of every table: src/db/schema.ts.
import type { Generated } from 'kysely';

export interface BackInStockRequestTable {
  id: Generated<number>;
  store_code: string;
  product_id: number;
  /** Trimmed and lower-cased; a client's is its account's email. */
  email: string;
  /** Null for a guest's request. */
  client_account_id: number | null;
  /** The mail's language for a guest (a client's mail follows its account's language when sent). */
  language: string;
  /** R: the public catalogue, B: the business one; which products the requester may be told about. */
  audience: 'R' | 'B';
  created_at: number;
  expires_at: number;
  /** Set once, by the conditional update that queues the mail; null while pending. */
  notified_at: number | null;
  /**
   * When the address confirmed the request: a guest's follows the mailed link (double opt-in), a
   * client's is confirmed when made. Null while waiting; the scan tells only confirmed requests.
   * While null, expires_at is when the link stops working.
   */
  confirmed_at: number | null;
  /** SHA-256 of the confirmation link's token, set by the worker that mails it; null for a client's request. */
  token_hash: string | null;
}

export interface BackInStockTables {
  back_in_stock_request: BackInStockRequestTable;
}
