// Mails a second through the worker's mailer: `npx tsx bench/mail.ts [--mails 400] [--concurrency 8]`.
// A burst of mails (a back-in-stock restock, an order run) sent as the worker sends them: up to
// JOB_CONCURRENCY at once through one mailer (src/infra/mail/mailer.ts), to a real SMTP server on
// loopback that behaves as a submission server does: STARTTLS (its built-in self-signed certificate),
// AUTH PLAIN, and smtp-server's 100 ms hold of the greeting. Prints mails a second, the connections
// the server saw and the time; the same run with SMTP_MAX_CONNECTIONS set shows what the pool is worth.
// Information only: no target, nothing written to bench/RESULTS.md.
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { SMTPServer } from 'smtp-server';
import { loadConfig } from '../src/config.js';
import { createMailer } from '../src/infra/mail/mailer.js';

const { values } = parseArgs({
  options: { mails: { type: 'string', default: '400' }, concurrency: { type: 'string', default: '8' } },
});
const mails = Number(values.mails);
const concurrency = Number(values.concurrency);

let connections = 0;
let received = 0;
const server = new SMTPServer({
  logger: false,
  disableReverseLookup: true,
  authMethods: ['PLAIN'],
  onConnect(_session, callback) {
    connections += 1;
    callback();
  },
  onAuth(auth, _session, callback) {
    callback(null, { user: auth.username });
  },
  onData(stream, _session, callback) {
    stream.on('end', () => {
      received += 1;
      callback();
    });
    stream.resume();
  },
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.server.address() as AddressInfo;

const config = loadConfig({
  ...process.env,
  SMTP_URL: `smtp://shop:secret@127.0.0.1:${port}?tls.rejectUnauthorized=false`,
});
const mailer = createMailer(config.mail, pino({ level: 'warn' }));
const body = 'Tere!\n\nRaamat, mida ootasite, on jälle saadaval: https://shop.example/p/1\n'.repeat(20);

let next = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < mails) {
      const n = next++;
      await mailer.send({ to: `reader-${n}@example.com`, subject: `Raamat on tagasi (${n})`, text: body, html: `<pre>${body}</pre>` });
    }
  }),
);
const seconds = (performance.now() - started) / 1000;
mailer.close();
server.close();

console.log(
  `${mails} mails, ${concurrency} at a time: ${seconds.toFixed(2)} s, ${(mails / seconds).toFixed(1)} mails/s, ` +
    `${connections} connections (server received ${received}); SMTP_MAX_CONNECTIONS=${process.env.SMTP_MAX_CONNECTIONS ?? '(default)'}`,
);
process.exit(received === mails ? 0 : 1);
