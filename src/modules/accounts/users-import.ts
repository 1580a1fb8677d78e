import { Type, type Static } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import { inTransactionRetryingOnDeadlock } from '../../db/deadlock.js';
import type { Database } from '../../db/schema.js';
import { systemClock, type Clock } from '../../infra/clock.js';
import { importNdjson, LineError, type ImportProgress, type ImportSummary } from '../../infra/import/index.js';
import type { Logger } from '../../infra/logger.js';
import { legacyHashValue } from '../../infra/passwords.js';
import { isErasedEmail } from '../../infra/personal-data.js';
import { normaliseEmail } from '../../infra/email-address.js';
import { Email, lineParser } from '../catalogue-import/index.js';
import { accountsOfUser, createClientAccount, insertCompany, insertUser, updateUser } from './accounts.repository.js';
import { findPersonByEmail } from './registration.service.js';

/** One line of `import users`: a user of the previous system and one of its client accounts. */
export const ImportedUser = Type.Object(
  {
    email: Email(),
    firstName: Type.Optional(Type.String({ maxLength: 100 })),
    lastName: Type.Optional(Type.String({ maxLength: 100 })),
    phone: Type.Optional(Type.String({ maxLength: 30 })),
    store: Type.Union([Type.Literal('WEB'), Type.Literal('WEB2')]),
    accountType: Type.Union([Type.Literal('SIMPLE'), Type.Literal('BUSINESS'), Type.Literal('WHOLESALE')]),
    activated: Type.Boolean(),
    /** SHA-512 hex of `salt + "-" + password + "-"` (LEGACY_PASSWORD_SALT). */
    legacyPasswordHash: Type.Optional(Type.String({ pattern: '^[0-9a-fA-F]{128}$' })),
    company: Type.Optional(
      Type.Object({
        name: Type.String({ minLength: 1, maxLength: 200 }),
        registryCode: Type.String({ minLength: 1, maxLength: 40 }),
        vatNumber: Type.Optional(Type.String({ maxLength: 40 })),
        street: Type.String({ maxLength: 200 }),
        city: Type.String({ maxLength: 100 }),
        postcode: Type.String({ maxLength: 20 }),
        countryCode: Type.String({ pattern: '^[A-Z]{2}$' }),
      }),
    ),
  },
  { additionalProperties: false },
);
type ImportedUser = Static<typeof ImportedUser>;

// Checked as the catalogue kinds' lines are, so a fault is worded alike (`/firstName: must be at
// most 100 characters long`, `/email: is not an email address`), and a control character (a NUL
// that PostgreSQL cannot store) is a bad line, not a failed write.
const parse = lineParser(ImportedUser, (value) => {
  if (value.accountType !== 'SIMPLE' && value.company === undefined) {
    throw new LineError(`/company: is required for a ${value.accountType} account`);
  }
  if (value.accountType === 'WHOLESALE' && value.store === 'WEB2') throw new LineError('/store: must be WEB for a WHOLESALE account');
  return value;
});

/**
 * Imports users line by line. Idempotent: a user that exists keeps its password and data, and only
 * a client account it lacks is added; importing the same file twice changes nothing.
 */
export async function importUsers(
  deps: { db: Kysely<Database>; clock?: Clock; log: Logger },
  file: string,
  report: (line: string) => void,
  progress?: ImportProgress,
): Promise<ImportSummary> {
  const clock = deps.clock ?? systemClock;
  // A line locks the person's accounts in id order (findPersonByEmail), as every writer of all of them
  // should; one that does not (a profile change did not) can deadlock with it on PostgreSQL. The line
  // runs again then: it only writes the database (its event in the outbox).
  const apply = (record: ImportedUser) => inTransactionRetryingOnDeadlock(deps.db, deps.log, (trx) => importUser(trx, record, clock.now()));
  return importNdjson(file, { parse, apply }, report, deps.log, progress);
}

/**
 * One line: the user unless it exists, and the client account unless the user has it. The user is
 * read as a registration reads it, under the erasure's locks (findPersonByEmail): a line that adds an
 * account while the person is erased is either waited for and erased with the rest, or waits and finds
 * the email no one's and makes a new person, as the same line imported after the erasure does (the
 * erasure keeps nothing that could tell the email was erased). Read without them, the line added a
 * live account to the erased user.
 */
async function importUser(trx: Db, record: ImportedUser, now: number): Promise<string> {
  // The address an erasure gave its user (a file taken from this system after it) names that user:
  // the line would give the erased person a live account again.
  if (isErasedEmail(normaliseEmail(record.email)))
    throw new LineError(
      "/email: is the address an erasure left in place of a person's email, not a person's; leave erased people out of the file",
    );
  const existing = await findPersonByEmail(trx, record.email);
  const userId =
    existing?.id ??
    (await insertUser(
      trx,
      {
        email: record.email,
        first_name: record.firstName ?? null,
        last_name: record.lastName ?? null,
        phone: record.phone ?? null,
        password_hash: record.legacyPasswordHash ? legacyHashValue(record.legacyPasswordHash) : null,
        language: 'et',
      },
      now,
    ));
  if (!existing && record.activated) {
    await updateUser(trx, userId, { email_verified: true, activated_at: now }, now);
  }
  const accounts = await accountsOfUser(trx, userId);
  // Whatever its status: an imported account a company removed since is not imported again (the
  // import runs again with the same file), nor is another made beside it.
  if (accounts.some((a) => a.store_code === record.store && a.type === record.accountType)) return existing ? 'unchanged' : 'created';
  const companyId = record.company
    ? await insertCompany(
        trx,
        {
          name: record.company.name,
          registry_code: record.company.registryCode,
          vat_number: record.company.vatNumber ?? null,
          street: record.company.street,
          city: record.company.city,
          postcode: record.company.postcode,
          country_code: record.company.countryCode,
        },
        now,
      )
    : undefined;
  await createClientAccount(trx, { userId, storeCode: record.store, type: record.accountType, companyId }, now);
  return existing ? 'account added' : 'created';
}
