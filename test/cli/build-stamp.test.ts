import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module script, without types
import { staleReason } from '../../scripts/build.mjs';

// `npm start` builds dist/ again only when it is missing or older than a source (scripts/build.mjs).

const root = mkdtempSync(join(tmpdir(), 'storefront-build-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const at = (file: string, seconds: number) => utimesSync(join(root, file), seconds, seconds);

describe('the build stamp', () => {
  it('asks for a build when dist/ is missing, unstamped, or older than any source or setting', () => {
    mkdirSync(join(root, 'src', 'db'), { recursive: true });
    for (const file of ['src/main.ts', 'src/db/a.ts', 'tsconfig.json', 'package.json']) {
      writeFileSync(join(root, file), '');
      at(file, 1000);
    }
    expect(staleReason(root)).toBe('dist/ is missing');
    mkdirSync(join(root, 'dist'));
    expect(staleReason(root)).toBe('dist/ was not built by npm run build');
    writeFileSync(join(root, 'dist', '.build-stamp'), '');
    at('dist/.build-stamp', 2000);
    expect(staleReason(root)).toBeUndefined();
    at('src/db/a.ts', 3000);
    expect(staleReason(root)).toBe('a source is newer than dist/');
    at('src/db/a.ts', 1000);
    at('tsconfig.json', 3000);
    expect(staleReason(root)).toBe('a source is newer than dist/');
  });
});
