import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askEmailChange, createAccountsTestApp, registerVerified, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';
import { keepEachTestInOneRateLimitWindow } from '../helpers/rate-limit-window.js';

keepEachTestInOneRateLimitWindow();

// An email change sent again and again (an impatient shopper's clicks, a client retrying after
// timeouts) is one change: it answers the first one's result and mails once, so it does not use up
// the user's email changes an hour (5) either; the user can still ask for another address after.
// One after the other: six at once also meet the login throttle, which counts a current password
// in flight before it is checked (a limit of the accounts module).

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp();
});
afterAll(() => t.close());

const askFor = (token: string, email: string) => askEmailChange(t, token, email);

describe('the same email change sent six times', () => {
  it('answers every copy as the first and counts it once against the five changes an hour', async () => {
    const token = await registerVerified(t, uniqueEmail('impatient'));
    const wanted = uniqueEmail('wanted');
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await askFor(token, wanted));
    expect(answers.map((answer) => answer.statusCode)).toEqual(Array(6).fill(200));
    expect(new Set(answers.map((answer) => answer.json().pendingEmail))).toEqual(new Set([wanted]));
    const corrected = uniqueEmail('corrected');
    const another = await askFor(token, corrected);
    expect(another.statusCode, another.body).toBe(200);
    expect(another.json().pendingEmail).toBe(corrected);
    // Changes that mail are still counted: three more make five, and a sixth address is refused.
    for (let i = 0; i < 3; i++) expect((await askFor(token, uniqueEmail(`again-${i}`))).statusCode).toBe(200);
    expect((await askFor(token, uniqueEmail('too-many'))).statusCode).toBe(429);
  });
});
