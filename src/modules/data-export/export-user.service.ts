import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { hashPassword } from '../../infra/passwords.js';
import { formatCidr, parseCidr } from './cidr.js';
import {
  deleteExportUser,
  findExportUser,
  insertExportUser,
  listExportUsers,
  updateExportUser,
  type ExportUserRow,
} from './export-user.repository.js';

/** A name or network the command line gives that is not one: the CLI prints it with the usage and exits with 2. */
export class ExportUserError extends Error {}

/** A well-formed request the export users refuse (a name that is not there, or is taken): the CLI prints it and exits with 1. */
export class ExportUserRefusal extends Error {}

// No colon (HTTP Basic splits at the first one) and nothing a shell or a log would mangle.
/** What an export user's name may be (the authentication looks up no other). */
export const EXPORT_USER_NAME = /^[A-Za-z0-9._-]{1,64}$/;

export interface ExportUserView {
  name: string;
  disabled: boolean;
  allowedCidrs: string[];
  createdAt: number;
  updatedAt: number;
}

/** The CIDR blocks as stored (normalised); an ExportUserError names the first bad one. */
export function normaliseCidrs(values: readonly string[]): string[] {
  return [
    ...new Set(
      values.map((value) => {
        const cidr = parseCidr(value);
        if (cidr === undefined) throw new ExportUserError(`not an IPv4 or IPv6 address or CIDR block: "${value}"`);
        return formatCidr(cidr);
      }),
    ),
  ];
}

/** 24 random bytes, base64url: 32 characters, 192 bits. Shown once; only its argon2id hash is kept. */
function generatePassword(): string {
  return randomBytes(24).toString('base64url');
}

export async function addExportUser(
  db: Kysely<Database>,
  name: string,
  cidrs: readonly string[],
  now: number,
): Promise<{ password: string }> {
  if (!EXPORT_USER_NAME.test(name)) throw new ExportUserError('the name must be 1 to 64 letters, digits, dots, underscores or hyphens');
  const allowedCidrs = normaliseCidrs(cidrs);
  if (await findExportUser(db, name))
    throw new ExportUserRefusal(`export user "${name}" exists already (rotate its password with: export-user rotate ${name})`);
  const password = generatePassword();
  await insertExportUser(db, { name, passwordHash: await hashPassword(password), allowedCidrs }, now);
  return { password };
}

export async function rotateExportUser(db: Kysely<Database>, name: string, now: number): Promise<{ password: string }> {
  const password = generatePassword();
  if (!(await updateExportUser(db, name, { password_hash: await hashPassword(password) }, now))) throw noSuchUser(name);
  return { password };
}

export async function setExportUserDisabled(db: Kysely<Database>, name: string, disabled: boolean, now: number): Promise<void> {
  if (!(await updateExportUser(db, name, { disabled_at: disabled ? now : null }, now))) throw noSuchUser(name);
}

/** Replaces the allowlist; an empty list allows every address. */
export async function setExportUserCidrs(db: Kysely<Database>, name: string, cidrs: readonly string[], now: number): Promise<void> {
  const allowed = normaliseCidrs(cidrs);
  if (!(await updateExportUser(db, name, { allowed_cidrs: JSON.stringify(allowed) }, now))) throw noSuchUser(name);
}

export async function removeExportUser(db: Kysely<Database>, name: string): Promise<void> {
  if (!(await deleteExportUser(db, name))) throw noSuchUser(name);
}

export async function exportUsers(db: Kysely<Database>): Promise<ExportUserView[]> {
  return (await listExportUsers(db)).map(view);
}

function view(row: ExportUserRow): ExportUserView {
  const parsed: unknown = JSON.parse(row.allowed_cidrs);
  return {
    name: row.name,
    disabled: row.disabled_at !== null,
    allowedCidrs: Array.isArray(parsed) ? parsed.map(String) : [],
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

const noSuchUser = (name: string) => new ExportUserRefusal(`no export user "${name}"`);
