import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GOOD_PASSWORD, mailTo, register, tokenFromMail, uniqueEmail } from '../helpers/accounts.js';
import { createProduct, createShop, setStock } from '../helpers/catalogue.js';
import { createCustomer } from '../helpers/customers.js';
import { expectErrorBody, expectFieldErrors } from '../helpers/http.js';
import { createSocialTestApp, newSubject, webFlow, type SocialTestApp } from '../helpers/social.js';
import { add, read, type BasketAnswer } from './helpers.js';

// The other ways of logging in answer with the client's basket too, the guest basket of the
// basket-token header merged in within their transaction: social-login (a local OpenID provider
// plays Google), verify-email and switch-web-store. Each merges once under a retry and under
// two tabs at once, and a failed one merges nothing.

let t: SocialTestApp;
const p = {} as Record<'book' | 'ebook' | 'both', number>;
beforeAll(async () => {
  t = await createSocialTestApp();
  const db = t.database.db;
  const shop = await createShop(db);
  p.book = await createProduct(db, { price: 10 });
  p.ebook = await createProduct(db, { type: 'EBOOK', binding: 'EPUB', deliveryTime: 'INSTANT_DOWNLOAD', price: 8 });
  p.both = await createProduct(db, { price: 7, stores: ['WEB', 'WEB2'] });
  await setStock(db, p.book, shop, 500);
  await setStock(db, p.both, shop, 500);
});
afterAll(() => t.close());

async function guestWith(lines: Array<[number, number]>, store = 'WEB'): Promise<string> {
  let token: string | undefined;
  for (const [id, quantity] of lines)
    token = (await add(t, { store, ...(token === undefined ? {} : { token }) }, id, quantity)).basketToken!;
  return token!;
}
const quantities = (basket: BasketAnswer) => Object.fromEntries(basket.items.map((item) => [item.productId, item.quantity]));
const guestHeader = (token: string | undefined): Record<string, string> => (token === undefined ? {} : { 'basket-token': token });

function answered(response: { statusCode: number; body: string; json(): unknown }): { accessToken: string; basket: BasketAnswer } {
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { accessToken: string; basket: BasketAnswer };
}

describe('POST /auth/social-login with a basket-token', () => {
  const socialLogin = (authId: string, token: string | undefined) =>
    t.app.inject({ method: 'POST', url: '/auth/social-login', headers: guestHeader(token), payload: { authId, isNativeForm: false } });
  const authIdFor = async (sub: string) => (await webFlow(t, 'google', { sub })).searchParams.get('authId')!;

  it('merges into the basket of the user the sign-in creates, and a retried sign-in does not double it', async () => {
    const sub = newSubject();
    t.google.addAccount({ sub, email: uniqueEmail('google'), email_verified: true, given_name: 'Kati', family_name: 'Karu' });
    const token = await guestWith([
      [p.book, 2],
      [p.ebook, 1],
    ]);
    const first = answered(await socialLogin(await authIdFor(sub), token));
    expect([quantities(first.basket), first.basket.basketToken]).toEqual([{ [p.book]: 2, [p.ebook]: 1 }, null]);
    expect(quantities(await read(t, { bearer: first.accessToken }))).toEqual({ [p.book]: 2, [p.ebook]: 1 });
    expect(await read(t, { token })).toMatchObject({ id: null, items: [] });
    // Signing in again (a new authId) with the same guest token.
    const again = answered(await socialLogin(await authIdFor(sub), token));
    expect([quantities(again.basket), again.basket.version]).toEqual([quantities(first.basket), first.basket.version]);
  });

  it('merges once when two tabs sign in with the same guest token at once', async () => {
    const sub = newSubject();
    t.google.addAccount({ sub, email: uniqueEmail('google'), email_verified: true });
    const user = answered(await socialLogin(await authIdFor(sub), undefined));
    await add(t, { bearer: user.accessToken }, p.book, 1);
    const token = await guestWith([[p.book, 3]]);
    const authIds = [await authIdFor(sub), await authIdFor(sub)];
    const answers = await Promise.all(authIds.map((authId) => socialLogin(authId, token)));
    for (const answer of answers) expect(quantities(answered(answer).basket)).toEqual({ [p.book]: 4 });
    expect(quantities(await read(t, { bearer: user.accessToken }))).toEqual({ [p.book]: 4 });
  });

  it('merges nothing when the sign-in fails (an unknown or used authId)', async () => {
    const sub = newSubject();
    t.google.addAccount({ sub, email: uniqueEmail('google'), email_verified: true });
    const authId = await authIdFor(sub);
    const user = answered(await socialLogin(authId, undefined));
    const token = await guestWith([[p.book, 2]]);
    expectErrorBody(await socialLogin(authId, token), 400, 'Bad Request');
    expectErrorBody(await socialLogin('no-such-auth-id', token), 400, 'Bad Request');
    expect(quantities(await read(t, { token }))).toEqual({ [p.book]: 2 });
    expect((await read(t, { bearer: user.accessToken })).items).toEqual([]);
  });
});

describe('POST /auth/verify-email with a basket-token', () => {
  const verify = (verificationToken: string, token: string | undefined, form: Record<string, unknown> = {}) =>
    t.app.inject({
      method: 'POST',
      url: '/auth/verify-email',
      headers: { store: 'WEB', ...guestHeader(token) },
      payload: { password: GOOD_PASSWORD, passwordRepeat: GOOD_PASSWORD, termsAccepted: true, verificationToken, ...form },
    });
  async function registered(): Promise<string> {
    const email = uniqueEmail('verify');
    expect((await register(t, email)).statusCode).toBe(200);
    return tokenFromMail(await mailTo(t, email, /./), 'verificationToken');
  }

  it('answers the new account with the guest basket merged; the used link again merges nothing', async () => {
    const verificationToken = await registered();
    const token = await guestWith([[p.book, 2]]);
    const verified = answered(await verify(verificationToken, token));
    expect(verified).toMatchObject({ webStoreNavCode: 'WEB' });
    expect(quantities(verified.basket)).toEqual({ [p.book]: 2 });
    expect(quantities(await read(t, { bearer: verified.accessToken }))).toEqual({ [p.book]: 2 });
    expect(await read(t, { token })).toMatchObject({ id: null, items: [] });
    expectErrorBody(await verify(verificationToken, token), 400, 'Bad Request');
    expect(quantities(await read(t, { bearer: verified.accessToken }))).toEqual({ [p.book]: 2 });
  });

  it('merges once when two tabs verify with the same guest token at once (one of them wins), and not on a bad form', async () => {
    const verificationToken = await registered();
    const token = await guestWith([[p.book, 3]]);
    expect(expectFieldErrors(await verify(verificationToken, token, { termsAccepted: false }))).toEqual(['termsAccepted']);
    expect(quantities(await read(t, { token }))).toEqual({ [p.book]: 3 });
    const answers = await Promise.all([verify(verificationToken, token), verify(verificationToken, token)]);
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 400]);
    const winner = answered(answers.find((answer) => answer.statusCode === 200)!);
    expect(quantities(winner.basket)).toEqual({ [p.book]: 3 });
    expect(quantities(await read(t, { bearer: winner.accessToken }))).toEqual({ [p.book]: 3 });
  });
});

describe('POST /auth/switch-web-store with a basket-token', () => {
  const switchStore = (bearer: string, token: string | undefined, target = 'WEB2') =>
    t.app.inject({
      method: 'POST',
      url: '/auth/switch-web-store',
      headers: { authorization: `Bearer ${bearer}`, store: 'WEB', ...guestHeader(token) },
      payload: { webStoreNavCode: target },
    });
  const web2Basket = (accessToken: string) => read(t, { bearer: accessToken, store: 'WEB2' });

  it("merges the target store's guest basket into the client's basket there, once under a retry", async () => {
    const client = await createCustomer(t.database.db);
    const token = await guestWith([[p.both, 2]], 'WEB2');
    const switched = answered(await switchStore(client.token, token));
    expect(quantities(switched.basket)).toEqual({ [p.both]: 2 });
    expect(quantities(await web2Basket(switched.accessToken))).toEqual({ [p.both]: 2 });
    expect(await read(t, { token, store: 'WEB2' })).toMatchObject({ id: null, items: [] });
    const retried = answered(await switchStore(client.token, token));
    expect([quantities(retried.basket), retried.basket.version]).toEqual([{ [p.both]: 2 }, switched.basket.version]);
  });

  it('merges once when two tabs switch with the same guest token at once', async () => {
    const client = await createCustomer(t.database.db);
    const token = await guestWith([[p.both, 3]], 'WEB2');
    const answers = await Promise.all([1, 2, 3].map(() => switchStore(client.token, token)));
    const baskets = answers.map((answer) => answered(answer).basket);
    for (const basket of baskets) expect(quantities(basket)).toEqual({ [p.both]: 3 });
    expect(quantities(await web2Basket(answered(answers[0]!).accessToken))).toEqual({ [p.both]: 3 });
  });

  it('merges nothing when the switch is refused, nor a guest basket of the store it leaves', async () => {
    const client = await createCustomer(t.database.db);
    const web2Guest = await guestWith([[p.both, 1]], 'WEB2');
    expect(expectFieldErrors(await switchStore(client.token, web2Guest, 'WEB'))).toEqual(['webStoreNavCode']);
    expect(quantities(await read(t, { token: web2Guest, store: 'WEB2' }))).toEqual({ [p.both]: 1 });
    const webGuest = await guestWith([[p.both, 2]], 'WEB');
    const switched = answered(await switchStore(client.token, webGuest));
    expect(switched.basket.items).toEqual([]);
    expect(quantities(await read(t, { token: webGuest }))).toEqual({ [p.both]: 2 });
  });
});
