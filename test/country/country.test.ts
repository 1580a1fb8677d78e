import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const all = async (language: string) =>
  (await t.app.inject({ method: 'GET', url: '/country?per-page=100', headers: { 'x-app-language': language } })).json() as Array<{
    code: string;
    name: string;
  }>;

describe('GET /country', () => {
  it('lists the EU and its neighbours, the Baltics and Finland first', async () => {
    const countries = await all('en');
    const codes = countries.map((c) => c.code);
    expect(codes.slice(0, 4)).toEqual(['EE', 'LV', 'LT', 'FI']);
    for (const code of ['DE', 'SE', 'PL', 'NO', 'UA', 'GB', 'CH']) expect(codes).toContain(code);
    expect(new Set(codes).size).toBe(codes.length);
  });

  it("orders the rest by the name in the language asked, by that language's alphabet", async () => {
    for (const language of ['et', 'en', 'ru']) {
      const names = (await all(language)).slice(4).map((c) => c.name);
      expect(names).toEqual([...names].sort(new Intl.Collator(language).compare));
    }
    // Estonian puts Š and Z right after S, and Õ Ä Ö Ü after W: not at the end by their code points.
    const et = (await all('et')).map((c) => c.name);
    expect(et.slice(et.indexOf('Suurbritannia'), et.indexOf('Suurbritannia') + 3)).toEqual(['Suurbritannia', 'Šveits', 'Taani']);
    expect(et.indexOf('Tšehhi')).toBeLessThan(et.indexOf('Türgi'));
  });

  it('translates every name', async () => {
    const [et, en, ru] = await Promise.all([all('et'), all('en'), all('ru')]);
    const byCode = (list: typeof et) => Object.fromEntries(list.map((c) => [c.code, c.name]));
    expect(byCode(et).DE).toBe('Saksamaa');
    expect(byCode(en).DE).toBe('Germany');
    expect(byCode(ru).DE).toBe('Германия');
    expect(et).toHaveLength(en.length);
    expect(ru).toHaveLength(en.length);
  });
});
