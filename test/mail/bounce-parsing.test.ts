import { describe, expect, it } from 'vitest';
import { bounceSenderFor, judgeBounce } from '../../src/infra/mail/bounces.js';

// What `mail bounce` reads is whatever reaches the bounce address: anyone may send it anything, up
// to the command's one MB. Reading it must take time in proportion to its size.

const BOUNCE_ADDRESS = 'bounces@shop.example';
const SECRET = 's'.repeat(32);

describe('reading a mail piped to mail bounce', () => {
  it('reads a message of many repeated header lines in linear time', () => {
    const recipient = 'mari@example.com';
    const sender = bounceSenderFor(BOUNCE_ADDRESS, SECRET, recipient);
    // 15 000 lines (about 180 KB, under the command's limit): the copies of the old parsing took
    // tens of seconds here, a full MB hours.
    const raw = `To: ${sender}\n${'Received: x\n'.repeat(15_000)}Content-Type: text/plain\n\nnot a bounce\n`;
    const started = performance.now();
    expect(judgeBounce(raw, { bounceAddress: BOUNCE_ADDRESS, secret: SECRET })).toEqual({
      kind: 'ignored',
      reason: 'not a delivery status notification',
    });
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
