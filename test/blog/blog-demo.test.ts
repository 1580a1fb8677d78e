import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeBlogDemo } from '../../src/demo/blog.js';
import { createShop } from '../helpers/catalogue.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
  await createShop(t.database.db, { code: 'TLN-VIRU', name: 'Viru' });
});
afterAll(() => t.close());

describe('demo content', () => {
  it('writes posts and news in three languages, a schedule with holidays and redirects, and a second run changes nothing', async () => {
    const now = Date.now();
    await t.database.db.transaction().execute((trx) => writeBlogDemo(trx, now));
    const before = await t.database.db.selectFrom('blog_post').select(['code', 'updated_at']).orderBy('code').execute();
    await t.database.db.transaction().execute((trx) => writeBlogDemo(trx, now + 1000));
    expect(await t.database.db.selectFrom('blog_post').select(['code', 'updated_at']).orderBy('code').execute()).toEqual(before);
    for (const language of ['et', 'en', 'ru']) {
      const blog = await t.app.inject({ method: 'GET', url: '/blog', headers: { 'x-app-language': language } });
      expect(blog.json().length, language).toBeGreaterThanOrEqual(2);
      const news = await t.app.inject({ method: 'GET', url: '/news', headers: { 'x-app-language': language } });
      expect(news.json()[0].language).toBe(language);
    }
    const schedule = (await t.app.inject({ method: 'GET', url: '/shop/TLN-VIRU/schedule' })).json();
    expect(schedule.exceptions.some((day: { closed: boolean }) => day.closed)).toBe(true);
    expect((await t.app.inject({ method: 'GET', url: '/external-url?path=/kampaania' })).json()).toMatchObject({ status: 302 });
  });
});
