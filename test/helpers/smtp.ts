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
  /** Cuts the connection under the next `count` messages, after reading them and before answering. */
  dropNext(count: number): void;
  /** Closes every open connection, as a server does to connections idle past its timeout. */
  dropIdle(): void;
  /** Refuses the address at RCPT TO with `reply` (e.g. "550 5.1.1 No such user") from now on. */
  refuseRecipient(address: string, reply: string): void;
  /** Takes mail for the address again. */
  acceptRecipient(address: string): void;
  /** Connections the server accepted so far. */
  connections(): number;
  /** The message as it came over the wire (headers and encoded body), for what must not be in it anywhere. */
  raw(mail: ParsedMail): string;
  /** The envelope sender (MAIL FROM) the mail came with: where a late bounce would go. */
  envelopeFrom(mail: ParsedMail): string | undefined;
  /** Connections that sent a message over TLS. */
  secureSessions(): number;
  close(): Promise<void>;
}

interface Waiter {
  predicate: (mail: ParsedMail) => boolean;
  resolve: (mail: ParsedMail) => void;
}

export interface SmtpCatcherOptions {
  /** 'smtps': TLS from the first byte; 'starttls': plain, upgraded by STARTTLS; smtp-server's own self-signed certificate either way. */
  tls?: 'smtps' | 'starttls';
  /** The port to listen on (a server coming back where one was); any free one by default. */
  port?: number;
}

/** A real SMTP server on 127.0.0.1 that keeps every message it accepts, parsed. */
export async function startSmtpCatcher(options: SmtpCatcherOptions = {}): Promise<SmtpCatcher> {
  const mails: ParsedMail[] = [];
  const waiters = new Set<Waiter>();
  let failures = 0;
  let drops = 0;
  let connections = 0;
  const secureSessions = new Set<string>();
  const refusals = new Map<string, { code: number; text: string }>();
  const senders = new WeakMap<ParsedMail, string>();
  const sources = new WeakMap<ParsedMail, string>();

  const server = new SMTPServer({
    authOptional: true,
    secure: options.tls === 'smtps',
    disabledCommands: options.tls === undefined ? ['STARTTLS'] : [],
    // Its reverse lookup of 127.0.0.1 asks the resolver for every connection, i.e. every mail.
    disableReverseLookup: true,
    // The worker's mailer keeps its connections open between mails: a test that closes the
    // catcher before the app would wait smtp-server's 30 s for them to go.
    closeTimeout: 100,
    logger: false,
    onConnect(_session, callback) {
      connections += 1;
      callback();
    },
    onRcptTo(address, _session, callback) {
      const refusal = refusals.get(address.address.toLowerCase());
      callback(refusal && Object.assign(new Error(refusal.text), { responseCode: refusal.code }));
    },
    onData(stream, session, callback) {
      if (session.secure) secureSessions.add(session.id);
      if (drops > 0) {
        drops -= 1;
        stream.on('end', () => [...server.connections].find((connection) => connection.id === session.id)?.close());
        stream.resume();
        return;
      }
      if (failures > 0) {
        failures -= 1;
        // Read the message off the socket before answering, or the client never sees the reply.
        stream.on('end', () => callback(Object.assign(new Error('Try again later (test failure)'), { responseCode: 451 })));
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      new Promise<Buffer>((resolve, reject) => {
        stream.on('end', () => resolve(Buffer.concat(chunks)));
        stream.on('error', reject);
      })
        .then(async (source) => ({ source, mail: await simpleParser(source) }))
        .then(
          ({ source, mail }) => {
            sources.set(mail, source.toString('utf8'));
            if (session.envelope.mailFrom) senders.set(mail, session.envelope.mailFrom.address);
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

  greetAtOnce(server);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.server.address() as AddressInfo;

  return {
    url:
      options.tls === undefined
        ? `smtp://127.0.0.1:${port}?ignoreTLS=true`
        : `${options.tls === 'smtps' ? 'smtps' : 'smtp'}://127.0.0.1:${port}?requireTLS=${options.tls === 'starttls'}&tls.rejectUnauthorized=false`,
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
    envelopeFrom: (mail) => senders.get(mail),
    raw: (mail) => sources.get(mail) ?? '',
    failNext(count) {
      failures = count;
    },
    dropNext(count) {
      drops = count;
    },
    refuseRecipient(address, reply) {
      const [, code, text] = /^(\d{3}) (.*)$/.exec(reply) ?? [];
      if (code === undefined || text === undefined) throw new Error(`not an SMTP reply: ${reply}`);
      refusals.set(address.toLowerCase(), { code: Number(code), text });
    },
    acceptRecipient(address) {
      refusals.delete(address.toLowerCase());
    },
    dropIdle() {
      for (const connection of server.connections) connection.close();
    },
    connections: () => connections,
    secureSessions: () => secureSessions.size,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * smtp-server holds every connection's greeting 100 ms, to catch a client that talks before it (an
 * "early talker", a spam bot's habit), and has no option to turn that off. The app opened a
 * connection per mail until its mailer kept them (infra/mail/mailer.ts), so the hold was most of a
 * mail's time in a test: 50 invitation mails drained one after another took 8 s. The catcher
 * greets at once instead; the hold's own call, 100 ms later, finds the connection greeted and does
 * nothing. bench/mail.ts keeps the hold, as a real server's is part of what it measures.
 */
function greetAtOnce(server: SMTPServer): void {
  const connect = server.connect.bind(server);
  server.connect = (socket, options) => {
    connect(socket, options);
    // connect() adds the new connection to the set, which keeps the order of insertion.
    const connection = [...server.connections].at(-1)!;
    const greet = connection.connectionReady.bind(connection);
    let greeted = false;
    connection.connectionReady = (next) => {
      if (greeted) return;
      greeted = true;
      greet(next);
    };
    connection.connectionReady();
  };
}
