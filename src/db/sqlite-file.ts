import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError } from '../infra/config-error.js';

// What a `sqlite:<file>` DATABASE_URL names, and the refusal of one that cannot be the shop's
// database, in the operator's terms. better-sqlite3 said "unable to open database file" for a folder
// and "file is not a database" for a file of another kind, naming neither the variable nor the path.

/**
 * The file a `sqlite:<file>` URL opens (a relative path from the working folder), which opening
 * makes when it is not there; undefined for `sqlite::memory:` and PostgreSQL.
 */
export function sqliteFileOf(url: string): string | undefined {
  if (!url.startsWith('sqlite:')) return undefined;
  const location = url.slice('sqlite:'.length);
  return location === ':memory:' || location === '' ? undefined : location;
}

/** What is wrong with a DATABASE_URL file, and what to do. */
interface SqliteFileProblem {
  problem: string;
  advice: string;
}

/** What a caller that makes no database says of a file with none in it: what follows from it, and what to do. */
export interface NoDatabaseThere {
  /** After "which does not exist" or "which is empty": ", and this command makes no database". */
  consequence: string;
  advice: string;
}

/**
 * The refusal of DATABASE_URL's SQLite file (`url` names one): the variable, its value and the file
 * in full (a relative path is from the folder the process runs in), what is wrong with it and what
 * to do, as one problem of a ConfigError (exit 1, the message alone).
 */
function refusal(url: string, problem: string, advice: string): ConfigError {
  return new ConfigError([`DATABASE_URL (${url}) names the SQLite file ${resolve(sqliteFileOf(url)!)}, ${problem}: ${advice}`]);
}

/** The first bytes of every SQLite database file. */
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');
const MISSING = Symbol('not there');
const EMPTY = Symbol('empty');
const CHECK_ACCESS = 'check DATABASE_URL, and that the user the process runs as may read and write the file and its folder';

/**
 * Why `file` cannot be opened as a SQLite database and what to do (MISSING when nothing is there),
 * undefined when it can: a stat and a read of its first 16 bytes, once when a process or command opens it.
 */
function problemOf(file: string): SqliteFileProblem | typeof MISSING | typeof EMPTY | undefined {
  let descriptor: number;
  try {
    if (statSync(file).isDirectory()) {
      return {
        problem: 'which is a folder, not a database file',
        advice: `name the file itself, e.g. sqlite:${join(resolve(file), 'storefront.db')}`,
      };
    }
    descriptor = openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return MISSING;
    return { problem: `which cannot be read (${(error as Error).message})`, advice: CHECK_ACCESS };
  }
  try {
    const head = Buffer.alloc(SQLITE_HEADER.length);
    const read = readSync(descriptor, head, 0, head.length, 0);
    // An empty file is a database not written yet: SQLite makes one in it, as in a new file (`touch shop.db`).
    if (read === 0) return EMPTY;
    if (head.equals(SQLITE_HEADER)) return undefined;
    return {
      problem: 'which is not a SQLite database',
      advice: "check DATABASE_URL: it names the shop's database, the file storefront migrate or serve made",
    };
  } catch (error) {
    return { problem: `which cannot be read (${(error as Error).message})`, advice: CHECK_ACCESS };
  } finally {
    closeSync(descriptor);
  }
}

/**
 * Refuses DATABASE_URL's SQLite file when it cannot be the shop's database: a folder, a file of
 * another kind, one this process cannot read; and, when `noDatabase` says what that means for the
 * caller, one that is not there or empty (either gets a new database when opened, an empty shop for a
 * command that makes none). Nothing to check for `sqlite::memory:` or PostgreSQL.
 */
export function refuseUnusableSqliteFile(url: string, noDatabase?: NoDatabaseThere): void {
  const file = sqliteFileOf(url);
  if (file === undefined) return;
  const found = problemOf(file);
  if (found === MISSING || found === EMPTY) {
    const what = found === MISSING ? 'which does not exist' : 'which is empty';
    if (noDatabase) throw refusal(url, `${what}${noDatabase.consequence}`, noDatabase.advice);
    return;
  }
  if (found) throw refusal(url, found.problem, found.advice);
}
