import type { EnvReader } from '../../infra/env.js';
import type { RateLimit } from '../../infra/rate-limit.js';

/** The `contact` section of the configuration: how many contact-form messages one client address, and one sender's email, may send. */
export interface ContactSection {
  /** POST /contact per client address (IPv6 by its /64), counted in the database. */
  perIp: RateLimit;
  /** POST /contact per sender's email, counted in the database: each message mails an acknowledgement to that address. */
  perEmail: RateLimit;
  /** Acknowledgements to one guest-typed address (its mailbox), from all senders: past it the office still gets the message. */
  ackPerEmail: RateLimit;
}

export function readContactConfig(env: EnvReader): ContactSection {
  return {
    perIp: env.rateLimit('CONTACT_RATE_LIMIT_PER_IP', '5/1h'),
    perEmail: env.rateLimit('CONTACT_RATE_LIMIT_PER_EMAIL', '5/1h'),
    ackPerEmail: env.rateLimit('CONTACT_ACK_PER_EMAIL', '1/1d'),
  };
}
