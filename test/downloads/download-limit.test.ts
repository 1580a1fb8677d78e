import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../helpers/http.js';
import { createDownloadWorld, downloads, get, linkPath, upload, type DownloadWorld } from './helpers.js';

// DOWNLOAD_LIMIT: each purchase may be downloaded so many times (a link counts once, at its first
// request); past it, no new link is given and a link got earlier is refused. The count is one
// conditional update, so parallel first requests cannot pass it together.

let world: DownloadWorld;
const file = randomBytes(2_000);
const en = { 'x-app-language': 'en' };
const idOf = async (productId: number) => (await downloads(world, world.customer)).find((item) => item.productId === productId)!.id;

beforeAll(async () => {
  world = await createDownloadWorld({ DOWNLOAD_LIMIT: '3' }, 2);
  for (const book of world.ebooks) expect((await upload(world, book.code, 'EPUB', file)).statusCode).toBe(200);
});

afterAll(async () => {
  await world?.close();
});

describe('the download limit', () => {
  it('serves three downloads, then refuses a link got before the limit and any new link with a 403', async () => {
    const id = await idOf(world.ebooks[0]!.id);
    const links = [];
    for (let index = 0; index < 4; index += 1) links.push(await linkPath(world, world.customer, id));
    for (const link of links.slice(0, 3)) expect((await get(world, link)).statusCode).toBe(200);
    const item = (await downloads(world, world.customer)).find((entry) => entry.id === id)!;
    expect(item).toMatchObject({ downloadsUsed: 3, downloadsAllowed: 3 });

    const late = await get(world, links[3]!, {}, en);
    expectErrorBody(late, 403, 'Forbidden');
    expect(late.json().message).toContain('3 times');
    expectErrorBody(await get(world, `/download/${id}/link`, world.customer, en), 403, 'Forbidden');
    // A link that counted its download goes on serving until it expires (a resumed download).
    expect((await get(world, links[0]!, {}, { range: 'bytes=1000-' })).statusCode).toBe(206);
    expect((await downloads(world, world.customer)).find((entry) => entry.id === id)!.downloadsUsed).toBe(3);
  });

  it('lets exactly three of six parallel first requests through', async () => {
    const id = await idOf(world.ebooks[1]!.id);
    const links = [];
    for (let index = 0; index < 6; index += 1) links.push(await linkPath(world, world.customer, id));
    const statuses = (await Promise.all(links.map((link) => get(world, link)))).map((response) => response.statusCode);
    expect(statuses.filter((status) => status === 200)).toHaveLength(3);
    expect(statuses.filter((status) => status === 403)).toHaveLength(3);
    expect((await downloads(world, world.customer)).find((entry) => entry.id === id)!.downloadsUsed).toBe(3);
    // The refused links left no trace: they are refused again, not served as already counted.
    const refused = links.filter((_link, index) => statuses[index] === 403);
    for (const link of refused) expect((await get(world, link)).statusCode).toBe(403);
  });
});
