import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface SmtpCatcher {
  /** For SMTP_URL: plain SMTP on loopback; ignoreTLS keeps nodemailer from trying STARTTLS. */
  url: string;
  mails: ParsedMail[];
  waitFor(predicate: (mail: ParsedMail) => boolean, timeoutMs?: number): Promise<ParsedMail>;
  clear(): void;
  /** Rejects the next `count` messages at DATA with a temporary 451, as a busy server would. */
  failNext(count: number): void;
  close(): Promise<void>;
}

interface Waiter {
  predicate: (mail: ParsedMail) => boolean;
  resolve: (mail: ParsedMail) => void;
}

/** A real SMTP server on 127.0.0.1 that keeps every message it accepts, parsed. */
export async function startSmtpCatcher(): Promise<SmtpCatcher> {
  const mails: ParsedMail[] = [];
  const waiters = new Set<Waiter>();
  let failures = 0;

  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      if (failures > 0) {
        failures -= 1;
        // Read the message off the socket before answering, or the client never sees the reply.
        stream.on('end', () => callback(Object.assign(new Error('Try again later (test failure)'), { responseCode: 451 })));
        stream.resume();
        return;
      }
      simpleParser(stream).then(
        (mail) => {
          mails.push(mail);
          for (const waiter of waiters) {
            if (!waiter.predicate(mail)) continue;
            waiters.delete(waiter);
            waiter.resolve(mail);
          }
          callback();
        },
        (err: Error) => callback(err),
      );
    },
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.server.address() as AddressInfo;

  return {
    url: `smtp://127.0.0.1:${port}?ignoreTLS=true`,
    mails,
    waitFor(predicate, timeoutMs = 5000) {
      const found = mails.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const waiter: Waiter = {
          predicate,
          resolve: (mail) => {
            clearTimeout(timer);
            resolve(mail);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          const subjects = mails.map((mail) => mail.subject).join(', ') || 'none';
          reject(new Error(`no matching mail within ${timeoutMs} ms (received: ${subjects})`));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    clear() {
      mails.length = 0;
    },
    failNext(count) {
      failures = count;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
