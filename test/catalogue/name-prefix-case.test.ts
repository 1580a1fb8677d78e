import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPerson, createProduct, createPublisher } from '../helpers/catalogue.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// The name indexes' `q` ignores case in every letter, also where a name's prefix has non-ASCII
// letters of both cases ("Õnne Pä", every Russian name), which SQLite's upper() and lower() leave alone.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  const db = t.database.db;
  const persons = [await createPerson(db, 'Õnne Pärl'), await createPerson(db, 'Фёдор Достоевский')];
  await createProduct(db, { persons: persons.map((id) => ({ id })), publisherId: await createPublisher(db, 'Ääretu Õun') });
});
afterAll(() => t.close());

const names = async (url: string) => {
  const response = await t.app.inject({ url: encodeURI(url), headers: { store: 'WEB' } });
  expect(response.statusCode).toBe(200);
  expect(Number(response.headers['x-pagination-total-count'])).toBe(response.json().length);
  return (response.json() as Array<{ name: string }>).map((item) => item.name);
};

describe('a name prefix with non-ASCII letters of both cases', () => {
  it.each(['Õnne Pä', 'õnne pä', 'ÕNNE PÄ', 'Pärl, Õ', 'pärl, õnne'])('/author?q=%s finds Õnne Pärl', async (q) => {
    expect(await names(`/author?q=${q}`)).toEqual(['Õnne Pärl']);
  });

  it.each(['Фёдор', 'фёдор д', 'ФЁДОР', 'Достоевский'])('/author?q=%s finds Фёдор Достоевский', async (q) => {
    expect(await names(`/author?q=${q}`)).toEqual(['Фёдор Достоевский']);
  });

  it.each(['Ääretu Õ', 'ääretu õun'])('/publisher?q=%s finds Ääretu Õun', async (q) => {
    expect(await names(`/publisher?q=${q}`)).toEqual(['Ääretu Õun']);
  });

  it('takes GLOB and LIKE characters literally', async () => {
    for (const q of ['Õ*', '?nne', '[Õ]nne', 'Õnne%', 'Õ_nne']) expect(await names(`/author?q=${q}`)).toEqual([]);
  });
});
