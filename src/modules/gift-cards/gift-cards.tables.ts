// The gift cards' tables (migration 2026_11_24_1300). Conventions of every table: src/db/schema.ts.
import type { ColumnType, Generated } from 'kysely';

export type GiftCardKind = 'PHYSICAL' | 'VIRTUAL';
export type GiftCardEntryKind = 'ISSUE' | 'IMPORT' | 'RESERVE' | 'CAPTURE' | 'RELEASE' | 'REFUND' | 'EXPIRY' | 'VOID';
export type GiftCardHoldState = 'HELD' | 'CAPTURED' | 'RELEASED' | 'REFUNDED';

export interface GiftCardTable {
  id: Generated<number>;
  /** HMAC-SHA256 (hex) of the normalised code under the server key: the code itself is never stored. */
  code_hmac: string;
  /** The code's last four characters, for lists and mails to the buyer. */
  code_hint: string;
  kind: GiftCardKind;
  initial_cents: number;
  /** The spendable balance: always the sum of the card's entries' amount_cents. */
  balance_cents: number;
  expires_at: number;
  order_id: number | null;
  order_position: number | null;
  buyer_client_account_id: number | null;
  recipient_name: string | null;
  recipient_email: string | null;
  message: string | null;
  /** Who the card is from, as the buyer gave it ('' when not: the store; migration 2026_12_02_0100). */
  sender_name: ColumnType<string, string | undefined, string>;
  store_code: string | null;
  language: string | null;
  deliver_at: number | null;
  mailed_at: number | null;
  /** When the recipient's address was refused as one that does not exist (migration 2026_12_02_1000). */
  undeliverable_at: ColumnType<number | null, number | null | undefined, number | null>;
  /** Which sending of the card is current: 0 when issued, one more for each `gift-card redeliver`. */
  delivery: ColumnType<number, number | undefined, number>;
  created_at: number;
  updated_at: number;
}

export interface GiftCardEntryTable {
  id: Generated<number>;
  gift_card_id: number;
  kind: GiftCardEntryKind;
  /** What the entry adds to the spendable balance (negative takes away). */
  amount_cents: number;
  /** What it adds to the part held for unpaid orders. */
  held_cents: number;
  order_id: number | null;
  /**
   * Money given back to a card past its date or near it (a refund, a released hold) moved the card's
   * expires_at to this (RETURN_VALID_DAYS, gift-card-ledger.ts): the reason for the new date. Null on
   * every other entry (migration 2026_12_04_1013).
   */
  extended_to: ColumnType<number | null, number | null | undefined, number | null>;
  created_at: number;
}

export interface GiftCardHoldTable {
  gift_card_id: number;
  order_id: number;
  amount_cents: number;
  state: GiftCardHoldState;
  created_at: number;
  updated_at: number;
}

export interface BasketGiftCardTable {
  basket_id: number;
  gift_card_id: number;
  added_at: number;
  /**
   * The card's balance when the shopper put it on the basket (or was last told it, by checkout's
   * 409): what the share the basket showed was worked out from. Null on rows from before 2026_11_30_1150.
   */
  seen_balance_cents: number | null;
}

export interface BasketVirtualGiftCardTable {
  basket_id: number;
  product_id: number;
  amount_cents: number;
  recipient_name: string;
  recipient_email: string;
  message: string;
  sender_name: ColumnType<string, string | undefined, string>;
  deliver_on: string;
}

export interface VirtualGiftCardPurchaseTable {
  order_id: number;
  position: number;
  amount_cents: number;
  recipient_name: string;
  recipient_email: string;
  message: string;
  sender_name: ColumnType<string, string | undefined, string>;
  deliver_at: number;
  buyer_client_account_id: number | null;
  buyer_email: string;
  store_code: string;
  language: string;
  gift_card_id: number | null;
  cancelled_at: number | null;
  created_at: number;
}

export interface GiftCardsTables {
  basket_virtual_gift_card: BasketVirtualGiftCardTable;
  virtual_gift_card_purchase: VirtualGiftCardPurchaseTable;
  gift_card: GiftCardTable;
  gift_card_entry: GiftCardEntryTable;
  gift_card_hold: GiftCardHoldTable;
  basket_gift_card: BasketGiftCardTable;
}
