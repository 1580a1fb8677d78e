import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { newSealingKeyEntry, parseSealingKeys, type SealingKey } from './sealed-secret.js';

/**
 * The sealing keys kept in `path` (a key list, as parseSealingKeys reads it), made on first use: one
 * random key, readable by the file's owner only (0600). Processes starting at once agree: the file
 * is written aside and linked into place, which fails for all but the first, and the others read it.
 */
export function sealingKeysFromFile(path: string): SealingKey[] {
  try {
    return parsedKeyFile(path, readFileSync(path, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dirname(path), { recursive: true });
  const aside = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(aside, `${newSealingKeyEntry(`f${randomBytes(3).toString('hex')}`)}\n`, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(aside, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(aside);
  }
  return parsedKeyFile(path, readFileSync(path, 'utf8'));
}

function parsedKeyFile(path: string, text: string): SealingKey[] {
  const parsed = parseSealingKeys(text);
  if ('problem' in parsed) throw new Error(`The key file ${path} ${parsed.problem}`);
  return parsed.keys;
}
