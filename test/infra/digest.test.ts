import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { digest } from '../../src/infra/digest.js';

describe('digest', () => {
  it('is the hash createHash gives, for both algorithms and encodings, on text with multi-byte characters', () => {
    for (const text of ['', 'token', 'Tõde ja õigus — 🦉 '.repeat(200)]) {
      for (const algorithm of ['sha1', 'sha256'] as const) {
        for (const encoding of ['hex', 'base64url'] as const) {
          expect(digest(algorithm, text, encoding)).toBe(createHash(algorithm).update(text).digest(encoding));
        }
      }
    }
  });
});
