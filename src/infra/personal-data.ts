import type { Db } from '../db/database.js';

// What a module holds about a person, for "your data" (modules/gdpr): the export and the erasure.
// Each module that stores personal data exports one `PersonalDataPart` from its index.ts, and the
// gdpr module's registry lists them, so a new module's tables join the export and the erasure by
// one line there. This file is the shape only (a lower layer imports no module).

/** One of the person's client accounts, as it was before the erasure. */
export interface SubjectAccount {
  id: number;
  code: string;
  storeCode: string;
  type: string;
  companyId: number | null;
  role: string;
  status: string;
}

/** Whose data: the login identity and every client account of it (all stores), read once. */
export interface PersonalDataSubject {
  userId: number;
  /**
   * The address what is kept by email (newsletter subscriptions, requests, guest orders) is looked up
   * by: the login email before the erasure while it is confirmed; for a user who has not confirmed it,
   * an address nothing is kept under (modules/gdpr), since those rows are the address owner's.
   */
  email: string;
  /**
   * Whether the login email is confirmed (modules/profile). While it is not, what follows the address
   * rather than the account (the newsletter flag on the user row too) is the address owner's, and a
   * part shows it as the account not having it.
   */
  loginEmailConfirmed: boolean;
  accounts: SubjectAccount[];
  /** The non-deliverable placeholder that replaces the email wherever a row is kept (RFC 2606 `.invalid`). */
  erasedEmail: string;
}

/** What replaces a name, phone or street in rows kept for accounting (orders, sales history). */
export const ERASED_MARKER = '[erased]';

/** The placeholder for a user's email after the erasure: unique by the user id, never deliverable. */
export const erasedEmailOf = (userId: number) => `erased-${userId}@erased.invalid`;
/** Whether an email is such a placeholder: the row it is on was the person's, and the erasure emptied it. */
export const isErasedEmail = (email: string) => /^erased-\d+@erased\.invalid$/.test(email);

export interface PersonalDataPart {
  /** The key of this part in the export's JSON. */
  name: string;
  /**
   * Everything the part holds about the subject, JSON-ready, without secrets (no password or
   * token hashes). Must be bounded: a part that may hold many rows pages and caps them itself.
   */
  export(db: Db, subject: PersonalDataSubject): Promise<unknown>;
  /** Throws a DomainError when the erasure must not happen now (the last master of a company). */
  refuseErasure?(trx: Db, subject: PersonalDataSubject, now: number): Promise<void>;
  /**
   * Removes or anonymises the part's rows inside the erasure's transaction. Parts run in the
   * registry's order; the accounts part runs last (it replaces the email the others look up by).
   */
  erase(trx: Db, subject: PersonalDataSubject, now: number): Promise<void>;
}

/** The ids of the subject's client accounts (for `where client_account_id in`); never empty-safe on its own. */
export const accountIdsOf = (subject: PersonalDataSubject) => subject.accounts.map((account) => account.id);
export const clientCodesOf = (subject: PersonalDataSubject) => subject.accounts.map((account) => account.code);
