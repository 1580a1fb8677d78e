import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { configProblems } from '../helpers/config.js';

// The README promises that a bad value stops the process at start. The mail settings were read as
// they came: an SMTP_URL of a host alone (mail.example.com) is no server to nodemailer, which then
// tries localhost, so the service started and every mail failed its attempts until it was dead.

describe('mail settings', () => {
  it('read an SMTP URL, a sender and a reply-to address', () => {
    const config = loadConfig({
      SMTP_URL: 'smtps://shop:secret@mail.example:465',
      MAIL_FROM: 'Raamatupood <no-reply@raamatupood.example>',
      MAIL_REPLY_TO: 'info@raamatupood.example',
    });
    expect(config.mail).toMatchObject({
      smtpUrl: 'smtps://shop:secret@mail.example:465',
      from: 'Raamatupood <no-reply@raamatupood.example>',
      replyTo: 'info@raamatupood.example',
    });
    expect(configProblems({ SMTP_URL: 'smtp://127.0.0.1:2525?ignoreTLS=true' })).toEqual([]);
  });

  it.each(['mail.example.com', 'https://mail.example', 'smtp:mail.example', 'mail.example:587'])(
    'refuses SMTP_URL=%s at start, without repeating the value (it may hold a password)',
    (value) => {
      expect(configProblems({ SMTP_URL: value })).toEqual([
        'SMTP_URL must be an smtp:// or smtps:// URL naming the mail server, e.g. smtps://user:pass@mail.example:465 (its value is not shown: it may hold a password)',
      ]);
    },
  );

  it('keep 4 connections of 100 mails each and no sending rate unless told otherwise, and refuse a count out of range', () => {
    expect(loadConfig({}).mail).toMatchObject({ smtpMaxConnections: 4, smtpMessagesPerConnection: 100, smtpMailsPerSecond: 0 });
    expect(loadConfig({ SMTP_MAX_CONNECTIONS: '1', SMTP_MESSAGES_PER_CONNECTION: '1000', SMTP_MAILS_PER_SECOND: '14' }).mail).toMatchObject(
      {
        smtpMaxConnections: 1,
        smtpMessagesPerConnection: 1000,
        smtpMailsPerSecond: 14,
      },
    );
    expect(configProblems({ SMTP_MAX_CONNECTIONS: '0', SMTP_MESSAGES_PER_CONNECTION: 'many', SMTP_MAILS_PER_SECOND: '-1' })).toEqual([
      'SMTP_MAX_CONNECTIONS must be a whole number from 1 to 50, got "0"',
      'SMTP_MESSAGES_PER_CONNECTION must be a whole number from 1 to 100000, got "many"',
      'SMTP_MAILS_PER_SECOND must be a whole number from 0 to 100000, got "-1"',
    ]);
  });

  it('refuses a sender or reply-to that is no email address', () => {
    expect(configProblems({ MAIL_FROM: 'Raamatupood', MAIL_REPLY_TO: 'info at raamatupood' })).toEqual([
      'MAIL_FROM must be an email address, or a name and one as "Raamatupood <no-reply@shop.example>", got "Raamatupood"',
      'MAIL_REPLY_TO must be an email address, or a name and one as "Raamatupood <no-reply@shop.example>", got "info at raamatupood"',
    ]);
  });
});

describe('MAIL_BOUNCE_ADDRESS', () => {
  it('takes a plain address with room for the tag, and a secret of 32 characters or more', () => {
    expect(loadConfig({ MAIL_BOUNCE_ADDRESS: 'bounces@shop.example' }).mail).toMatchObject({ bounceAddress: 'bounces@shop.example' });
    expect(loadConfig({}).mail.bounceAddress).toBeUndefined();
    const rule = (value: string) =>
      `MAIL_BOUNCE_ADDRESS must be a plain address without "+" whose part before the @ has at most 31 characters (a tag is added to it), e.g. bounces@shop.example, got "${value}"`;
    for (const value of [
      'Shop <bounces@shop.example>',
      'bounces+x@shop.example',
      'bounces',
      'bounces@localhost',
      `${'b'.repeat(32)}@shop.example`,
    ]) {
      expect(configProblems({ MAIL_BOUNCE_ADDRESS: value })).toEqual([rule(value)]);
    }
    expect(configProblems({ MAIL_BOUNCE_ADDRESS: `${'b'.repeat(31)}@shop.example`, MAIL_BOUNCE_SECRET: 'x'.repeat(32) })).toEqual([]);
    expect(configProblems({ MAIL_BOUNCE_SECRET: 'short' })).toEqual(['MAIL_BOUNCE_SECRET must be at least 32 characters']);
  });
});

describe('PUBLIC_URL', () => {
  it('is this service on its PORT when not set', () => {
    expect(loadConfig({ PORT: '8080' }).orders.publicUrl).toBe('http://127.0.0.1:8080');
  });

  // Every link the service makes is PUBLIC_URL and a path after it: with a query the sitemap index
  // named https://api.shop.example/?v=1/sitemap/WEB/products-1.xml, with a fragment a URL that never
  // reaches the server, with a user name and password links that hand them out.
  it.each([
    'https://api.shop.example/?v=1',
    'https://api.shop.example/#top',
    'https://ops:secret@api.shop.example',
    'https://api.shop.example/?',
  ])('refuses PUBLIC_URL=%s at load', (url) => {
    expect(configProblems({ PUBLIC_URL: url })).toEqual([
      `PUBLIC_URL must be an http(s) URL without a query, a fragment or a user name and password, got "${url}"`,
    ]);
  });

  it('takes a PUBLIC_URL with a path', () => {
    expect(configProblems({ PUBLIC_URL: 'https://shop.example/api/' })).toEqual([]);
  });

  it.each(['abc', '70000', '-1'])('is not reported as bad, unset, beside a bad PORT=%s (only PORT is)', (port) => {
    expect(configProblems({ PORT: port })).toEqual([`PORT must be a whole number from 0 to 65535, got "${port}"`]);
  });
});
