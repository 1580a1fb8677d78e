import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkSigner } from '../../src/modules/downloads/download-link.js';
import { checksumSecret, orderChecksum } from '../../src/modules/orders/checksum.js';
import { expectErrorBody } from '../helpers/http.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import { setFrontendUrl } from '../orders/purchase-helpers.js';
import { buyWithLink, createDownloadWorld, downloads, get, LINK_SECRET, upload, type DownloadItem, type DownloadWorld } from './helpers.js';

// A guest who bought an e-book has no account, so no GET /download: its order's files are listed and
// linked on the order (GET /order/{code}/download, with the order's checksum, the link of its order
// mail), under the same download limit. Nobody else reaches them, and a guest's link reaches no client's purchase.

let world: DownloadWorld;
let smtp: SmtpCatcher;
const epub = randomBytes(20_000);
let guestOrder: { orderId: number; checksum: string; code: string };
let clientOrderCode: string;

const orderCode = async (orderId: number) =>
  (await world.t.database.db.selectFrom('customer_order').select('code').where('id', '=', orderId).executeTakeFirstOrThrow()).code!;

const list = (code: string, query: string, bearer?: string) => get(world, `/order/${code}/download${query}`, { bearer });
const link = (code: string, id: string, query: string, bearer?: string) =>
  get(world, `/order/${code}/download/${id}/link${query}`, { bearer });
const pathOf = (response: { json(): unknown }) => new URL((response.json() as { url: string }).url).pathname;

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  world = await createDownloadWorld({ DOWNLOAD_LIMIT: '2', SMTP_URL: smtp.url });
  await setFrontendUrl(world.t.database.db, 'WEB', 'https://shop.example');
  const [book] = world.ebooks;
  expect((await upload(world, book!.code, 'EPUB', epub)).statusCode).toBe(200);
  const courier = await world.t.database.db
    .selectFrom('delivery_method')
    .select('id')
    .where('code', '=', 'EMAIL')
    .executeTakeFirstOrThrow();
  const bought = await buyWithLink(world.t, {}, [book!.id], Number(courier.id));
  guestOrder = { ...bought, code: await orderCode(bought.orderId) };
  clientOrderCode = await orderCode(world.orderId);
});

afterAll(async () => {
  await world?.close();
  await smtp?.close();
});

describe("a guest's order downloads", () => {
  it("tells the buyer in the order mail where the downloads are: a guest on the order's page, a client in the account too", async () => {
    const mailOf = async (code: string) => (await smtp.waitFor((mail) => mail.subject?.includes(code) === true)).text ?? '';
    const guestMail = await mailOf(guestOrder.code);
    expect(guestMail).toContain('Teie e-raamatud ja audioraamatud saate alla laadida tellimuse lehelt');
    expect(guestMail).toContain(`checksum=${guestOrder.checksum}`);
    expect(await mailOf(clientOrderCode)).toContain('saate alla laadida oma kontolt (Allalaadimised)');
  });

  it("lists the order's files for the checksum's holder, as GET /download lists a client's", async () => {
    const response = await list(guestOrder.code, `?checksum=${guestOrder.checksum}`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['x-pagination-total-count']).toBe('1');
    const items = response.json() as DownloadItem[];
    expect(items).toEqual([
      expect.objectContaining({
        id: expect.stringMatching(new RegExp(`^${guestOrder.orderId}-[0-9]+$`)),
        source: 'ORDER',
        orderCode: guestOrder.code,
        productId: world.ebooks[0]!.id,
        format: 'EPUB',
        size: epub.length,
        downloadsUsed: 0,
        downloadsAllowed: 2,
      }),
    ]);
    // The client who bought the same book lists its own purchase, not the guest's.
    expect((await downloads(world, world.customer)).map((item) => item.id)).not.toContain(items[0]!.id);
  });

  it('gives a link that serves the file without a bearer, or with anybody’s, and counts the download', async () => {
    const [item] = (await list(guestOrder.code, `?checksum=${guestOrder.checksum}`)).json() as DownloadItem[];
    const linked = await link(guestOrder.code, item!.id, `?checksum=${guestOrder.checksum}`);
    expect(linked.statusCode, linked.body).toBe(200);
    const file = await get(world, pathOf(linked));
    expect(file.statusCode, file.body).toBe(200);
    expect(file.rawPayload.equals(epub)).toBe(true);
    // A shopper who logged in since still has the guest's order: a guest link is nobody's account's.
    const again = await link(guestOrder.code, item!.id, `?checksum=${guestOrder.checksum}`);
    expect((await get(world, pathOf(again), world.stranger)).statusCode).toBe(200);
    const [after] = (await list(guestOrder.code, `?checksum=${guestOrder.checksum}`)).json() as DownloadItem[];
    expect(after!.downloadsUsed).toBe(2);
    // DOWNLOAD_LIMIT (2) holds for a guest as for a client.
    expectErrorBody(await link(guestOrder.code, item!.id, `?checksum=${guestOrder.checksum}`), 403, 'Forbidden');
  });

  it('is a 404 without the checksum, with a wrong one, for another client, and for an item of another order', async () => {
    const [item] = (await list(guestOrder.code, `?checksum=${guestOrder.checksum}`)).json() as DownloadItem[];
    const wrong = guestOrder.checksum.replace(/^./, (c) => (c === '0' ? '1' : '0'));
    for (const query of ['', `?checksum=${wrong}`]) {
      expectErrorBody(await list(guestOrder.code, query), 404, 'Not Found');
      expectErrorBody(await link(guestOrder.code, item!.id, query), 404, 'Not Found');
      expectErrorBody(await list(guestOrder.code, query, world.customer.bearer), 404, 'Not Found');
    }
    // The client's own purchase is not reached through the guest's order, nor a made-up item.
    const [clientItem] = await downloads(world, world.customer);
    for (const id of [clientItem!.id, `S1-${item!.id.split('-')[1]}`, 'x', `${guestOrder.orderId}-999999`]) {
      expectErrorBody(await link(guestOrder.code, id, `?checksum=${guestOrder.checksum}`), 404, 'Not Found');
    }
  });

  it("keeps a client's order downloads to the client logged in, whoever holds the order's checksum", async () => {
    const db = world.t.database.db;
    const checksum = orderChecksum(await checksumSecret(db, undefined, Date.now())).of(world.orderId);
    // The checksum reads the order (the mail's link, the gateway's return), but the files are the account's.
    expect((await get(world, `/order/${clientOrderCode}?checksum=${checksum}`)).statusCode).toBe(200);
    const [item] = await downloads(world, world.customer);
    for (const bearer of [undefined, world.stranger.bearer]) {
      expectErrorBody(await list(clientOrderCode, `?checksum=${checksum}`, bearer), 401, 'Unauthorized');
      expectErrorBody(await link(clientOrderCode, item!.id, `?checksum=${checksum}`, bearer), 401, 'Unauthorized');
    }
    expect((await list(clientOrderCode, `?checksum=${checksum}`, world.customer.bearer)).statusCode).toBe(200);
  });

  it("lets a client read its own order's downloads without a checksum, and keeps its links its own", async () => {
    const response = await list(clientOrderCode, '', world.customer.bearer);
    expect(response.statusCode, response.body).toBe(200);
    const [item] = response.json() as DownloadItem[];
    expect(item!.id).toBe((await downloads(world, world.customer))[0]!.id);
    const linked = await link(clientOrderCode, item!.id, '', world.customer.bearer);
    expect(linked.statusCode, linked.body).toBe(200);
    expectErrorBody(await get(world, pathOf(linked), world.stranger), 403, 'Forbidden');
    expectErrorBody(await list(clientOrderCode, '', world.stranger.bearer), 404, 'Not Found');
  });

  it("does not open a client's purchase with a link made for no client", async () => {
    const [clientItem] = await downloads(world, world.customer);
    const [orderId, fileId] = clientItem!.id.split('-').map(Number) as [number, number];
    const token = linkSigner(LINK_SECRET).sign({ orderId, fileId, clientAccountId: null, expiresAt: Date.now() + 60_000 });
    expectErrorBody(await get(world, `/direct-download/${token}`), 403, 'Forbidden');
  });
});
