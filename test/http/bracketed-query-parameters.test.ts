import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// axios (by default) and PHP-style serializers write a list as `type[]=BOOK&type[]=EBOOK`. Unknown
// query parameters are dropped, so the bracketed name was too: a search for e-books answered every
// product, with nothing to tell the front-end its filter had been ignored. A declared parameter sent
// with brackets is now a 400 that says how to write it.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const get = (url: string, language = 'en') => t.app.inject({ method: 'GET', url, headers: { store: 'WEB', 'x-app-language': language } });

const message = async (url: string, language = 'en') => expectErrorBody(await get(url, language), 400, 'Bad Request').message;

describe('a declared query parameter sent with brackets', () => {
  it('is refused, saying to write a list once per value without brackets', async () => {
    expect(await message('/product/search?q=tode&type[]=EBOOK&type[]=BOOK')).toBe(
      'Invalid value of "type[]": type[] is not a parameter here; write it without brackets, once per value: type=A&type=B.',
    );
    expect(await message('/product-dynamic-filter/filters?language%5B0%5D=ET')).toContain('language=A&language=B');
  });

  it('is refused for a parameter of one value too, naming the name to write', async () => {
    expect(await message('/product?categoryId[]=1')).toBe(
      'Invalid value of "categoryId[]": categoryId[] is not a parameter here; write it without brackets, as categoryId.',
    );
  });

  it('says so in each language', async () => {
    expect(await message('/product/search?type[]=EBOOK', 'et')).toContain(
      'kirjutage see ilma nurksulgudeta, iga väärtus eraldi: type=A&type=B',
    );
    expect(await message('/product/search?type[]=EBOOK', 'ru')).toContain('без квадратных скобок');
  });

  it('leaves the parameter without brackets, and unknown bracketed names, as they were', async () => {
    expect((await get('/product/search?q=tode&type=EBOOK&type=BOOK')).statusCode).toBe(200);
    expect((await get('/product?categoryId=1&utm[]=x')).statusCode).toBe(200);
  });
});
