import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/demo/seed.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';
import { read } from './content-helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  await seedDemo(t.database, { now: Date.now() });
}, 120_000);
afterAll(() => t.close());

describe(`the demo shop's content (${engine})`, () => {
  it('has a home page with product blocks, banners, a menu and pages in three languages', async () => {
    const home = await read(t, '/main-page');
    expect(home.statusCode, home.body).toBe(200);
    const blocks = home.json().blocks as Array<{ type: string; products?: unknown[]; banners?: unknown[]; campaigns?: unknown[] }>;
    expect(blocks.filter((block) => block.products !== undefined).every((block) => block.products!.length > 0)).toBe(true);
    expect(blocks.find((block) => block.type === 'BANNER')?.banners).toHaveLength(1);
    expect(blocks.find((block) => block.type === 'CAMPAIGN_LIST')?.campaigns).toHaveLength(1);
    for (const [language, title] of [
      ['et', 'Meist'],
      ['en', 'About us'],
      ['ru', 'О нас'],
    ]) {
      expect((await read(t, '/content-page/meist', { 'x-app-language': language! })).json()).toMatchObject({ language, title });
    }
    expect((await read(t, '/header-banner')).json()).toHaveLength(2);
    const menu = (await read(t, '/mega-menu')).json();
    expect(menu.categories.length).toBeGreaterThan(0);
    expect(menu.banners).toHaveLength(1);
    expect((await read(t, '/discount-page/raamatunadal')).json().products.length).toBeGreaterThan(0);
  });

  it('is written once: seeding again changes nothing', async () => {
    const before = await t.database.db.selectFrom('block_page').select(['code', 'updated_at']).orderBy('code').execute();
    await seedDemo(t.database, { now: Date.now() + 1000 });
    expect(await t.database.db.selectFrom('block_page').select(['code', 'updated_at']).orderBy('code').execute()).toEqual(before);
  });
});
