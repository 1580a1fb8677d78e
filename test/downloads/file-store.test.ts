import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { FileStoreKeyError, localFileStore } from '../../src/infra/file-store/index.js';

// The local file store keeps every key inside its folder, and the configuration of the file
// store and the downloads.

const root = mkdtempSync(join(tmpdir(), 'storefront-store-'));
const dir = join(root, 'files');
const store = localFileStore(dir);
// A file beside the store's folder that a climbing key would reach.
writeFileSync(join(root, 'secret.txt'), 'not yours');

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the local file store', () => {
  it('puts, stats, reads a span of and deletes a file', async () => {
    expect(await store.put('products/1/a.epub', Readable.from([Buffer.from('hello '), Buffer.from('world')]))).toEqual({ size: 11 });
    expect(await store.stat('products/1/a.epub')).toEqual({ size: 11 });
    expect(await text(await store.createReadStream('products/1/a.epub', { start: 6, end: 10 }))).toBe('world');
    expect(await text(await store.createReadStream('products/1/a.epub'))).toBe('hello world');
    // Opened once: a put over it, or its removal, after the open leaves the opened version whole.
    const opened = (await store.open('products/1/a.epub'))!;
    expect(opened.size).toBe(11);
    await store.put('products/1/a.epub', Readable.from([Buffer.from('replaced')]));
    expect(await text(opened.stream)).toBe('hello world');
    expect(await store.open('products/1/never.epub')).toBeUndefined();
    await store.delete('products/1/a.epub');
    expect(await store.stat('products/1/a.epub')).toBeUndefined();
    await store.delete('products/1/a.epub');
    await expect(store.createReadStream('products/1/a.epub')).rejects.toThrow();
  });

  it('leaves nothing behind when the content fails midway', async () => {
    const failing = new Readable({
      read() {
        this.push(Buffer.from('part'));
        this.destroy(new Error('client went away'));
      },
    });
    await expect(store.put('products/2/b.pdf', failing)).rejects.toThrow('client went away');
    expect(readdirSync(join(dir, 'products', '2'))).toEqual([]);
  });

  it('refuses keys that could leave its folder or are not plain names', async () => {
    const bad = [
      '../secret.txt',
      'products/../../secret.txt',
      '/etc/passwd',
      '..',
      'a/./b',
      'a//b',
      '',
      '.hidden',
      'a\\..\\b',
      'a/b/',
      'x\u0000y',
      'ä.epub',
    ];
    for (const key of bad) {
      await expect(store.stat(key), key).rejects.toBeInstanceOf(FileStoreKeyError);
      await expect(store.createReadStream(key), key).rejects.toBeInstanceOf(FileStoreKeyError);
      await expect(store.put(key, Readable.from([Buffer.from('x')])), key).rejects.toBeInstanceOf(FileStoreKeyError);
      await expect(store.delete(key), key).rejects.toBeInstanceOf(FileStoreKeyError);
    }
    expect(readdirSync(root).sort()).toEqual(['files', 'secret.txt']);
  });
});

describe('configuration of downloads', () => {
  it('has defaults and reads every variable', () => {
    expect(loadConfig({})).toMatchObject({
      fileStore: { dir: './data/files' },
      downloads: { limit: 10, linkTtlMs: 300_000, linkBudget: 3, itemsBatch: 1000, linkSecret: undefined },
    });
    const secret = 'x'.repeat(32);
    expect(
      loadConfig({
        FILE_STORE_DIR: '/srv/files',
        DOWNLOAD_LIMIT: '3',
        DOWNLOAD_LINK_TTL: '90s',
        DOWNLOAD_LINK_BUDGET: '5',
        DOWNLOAD_ITEMS_BATCH: '200',
        DOWNLOAD_LINK_SECRET: secret,
      }),
    ).toMatchObject({
      fileStore: { dir: '/srv/files' },
      downloads: { limit: 3, linkTtlMs: 90_000, linkBudget: 5, itemsBatch: 200, linkSecret: secret },
    });
  });

  it('refuses bad values, and a partial S3 configuration, by name', () => {
    for (const [name, value] of [
      ['DOWNLOAD_LIMIT', '0'],
      ['DOWNLOAD_LIMIT', 'many'],
      ['DOWNLOAD_LINK_TTL', 'soon'],
      ['DOWNLOAD_LINK_BUDGET', '0'],
      ['DOWNLOAD_ITEMS_BATCH', 'all'],
      ['DOWNLOAD_LINK_SECRET', 'short'],
      ['FILE_STORE_S3_BUCKET', 'books'],
    ] as const) {
      let error: unknown;
      try {
        loadConfig({ [name]: value });
      } catch (err) {
        error = err;
      }
      expect(error, name).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems.join('\n')).toContain(name);
    }
  });
});
