import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeStoreNamesDemo } from '../../src/demo/stores.js';
import { storeCommand } from '../../src/modules/store/index.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// A mail's subject ends in its store's name. A store has one name, carried as it is in every language;
// the demo's stores kept the migration's English placeholders ('Main store'), so its Estonian mails ended
// in English. The demo now names them after its brand, leaving a name an operator set.

let t: TestApp;
let smtp: SmtpCatcher;
beforeAll(async () => {
  smtp = await startSmtpCatcher();
  t = await createTestApp({ env: { SMTP_URL: smtp.url } });
  await storeCommand(t.database.db, ['set', 'WEB2', '--name=Tartu raamatuladu'], () => {});
  await t.database.db.transaction().execute((trx) => writeStoreNamesDemo(trx, Date.now()));
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

const configName = async (store: string) => (await t.app.inject({ method: 'GET', url: '/app/config', headers: { store } })).json().name;

describe("the demo stores' names in mails", () => {
  it("an Estonian mail's subject ends in the store's name, not an English placeholder", async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/contact',
      headers: { 'x-app-language': 'et' },
      payload: { name: 'Mari Maasikas', email: 'mari@example.ee', subject: 'Tellimuse kohta', message: 'Kas mu raamat on teel?' },
    });
    expect(response.statusCode, response.body).toBe(202);
    await t.drainJobs();
    const ack = smtp.mails.find((mail) => mail.subject?.startsWith('Saime teie sõnumi kätte'));
    expect(ack?.subject).toBe('Saime teie sõnumi kätte – Raamatupood');
    expect(await configName('WEB')).toBe('Raamatupood');
  });

  it('a name an operator set stays', async () => {
    expect(await configName('WEB2')).toBe('Tartu raamatuladu');
  });
});
