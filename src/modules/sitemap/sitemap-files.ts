import { Readable } from 'node:stream';
import type { FileStore } from '../../infra/file-store/index.js';
import type { SitemapUrl } from './sitemap-sections.repository.js';

// Sitemap XML (sitemaps.org 0.9), written as it is read: a section's URLs stream from its keyset
// reads into files of at most `maxUrls` each, so memory holds one page of rows and one chunk of XML.

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n';
const NS = 'http://www.sitemaps.org/schemas/sitemap/0.9';
/** URLs joined into one chunk of the stream: fewer, larger writes. */
const CHUNK = 200;

export const storeFileKey = (storeCode: string, file: string) => `sitemap/${storeCode}/${file}`;

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

const iso = (ms: number) => new Date(ms).toISOString();

/** A path character RFC 3986 does not take as it is, once the URL parser has encoded the rest (`|`, `^`, `[`...). */
const NOT_IN_PATH = /[^A-Za-z0-9\-._~!$&'()*+,;=:@/%]|%(?![0-9A-Fa-f]{2})/g;

/**
 * A URL as the sitemap protocol takes it (RFC 3986, before XML escaping), without a trailing slash:
 * the host of an internationalised domain in its xn-- form, the path percent-encoded. The front-end
 * URL (`store set --frontend-url`) and PUBLIC_URL are kept as typed (`https://pööd.example/raamatud-ä`),
 * which crawlers refuse or read as another page. Paths put after it are encoded by their sections.
 */
export function sitemapBaseUrl(url: string): string {
  const parsed = new URL(url);
  const path = parsed.pathname.replace(NOT_IN_PATH, (char) => encodeURIComponent(char));
  return `${parsed.protocol}//${parsed.host}${path}`.replace(/\/+$/, '');
}

export interface WrittenSection {
  files: string[];
}

/**
 * Writes the section's URLs to `<stem>-1.xml`, `<stem>-2.xml` ..., at most `maxUrls` each, and
 * answers the file names. `counted.urls` and `counted.files` grow as URLs and files are written, so a
 * failure still tells how far it got. A file that fails half-way is not stored (the file store writes a file whole or not).
 */
export async function writeSectionFiles(
  fileStore: FileStore,
  target: { storeCode: string; stem: string; baseUrl: string; maxUrls: number },
  urls: AsyncIterable<SitemapUrl>,
  counted: { urls: number; files: string[] },
): Promise<WrittenSection> {
  const baseUrl = sitemapBaseUrl(target.baseUrl);
  const iterator = urls[Symbol.asyncIterator]();
  let next = await iterator.next();
  const files: string[] = [];
  while (!next.done) {
    const file = `${target.stem}-${files.length + 1}.xml`;
    async function* body(): AsyncGenerator<string> {
      yield `${XML_HEAD}<urlset xmlns="${NS}">\n`;
      let inFile = 0;
      let chunk: string[] = [];
      while (!next.done && inFile < target.maxUrls) {
        const url = next.value;
        const lastmod = url.lastmod === undefined ? '' : `<lastmod>${iso(url.lastmod)}</lastmod>`;
        chunk.push(`<url><loc>${escapeXml(baseUrl + url.path)}</loc>${lastmod}</url>\n`);
        inFile += 1;
        counted.urls += 1;
        if (chunk.length >= CHUNK) {
          yield chunk.join('');
          chunk = [];
        }
        next = await iterator.next();
      }
      yield `${chunk.join('')}</urlset>\n`;
    }
    await fileStore.put(storeFileKey(target.storeCode, file), Readable.from(body()));
    files.push(file);
    counted.files.push(file);
  }
  return { files };
}

/** The sitemap index: one entry per file, at `fileUrl(file)` (encoded as sitemapBaseUrl does), with its last generation time. */
export async function writeIndexFile(
  fileStore: FileStore,
  storeCode: string,
  entries: ReadonlyArray<{ file: string; lastmod: number }>,
  fileUrl: (file: string) => string,
): Promise<void> {
  const lines = entries.map(
    (entry) => `<sitemap><loc>${escapeXml(sitemapBaseUrl(fileUrl(entry.file)))}</loc><lastmod>${iso(entry.lastmod)}</lastmod></sitemap>\n`,
  );
  const xml = `${XML_HEAD}<sitemapindex xmlns="${NS}">\n${lines.join('')}</sitemapindex>\n`;
  await fileStore.put(storeFileKey(storeCode, INDEX_FILE), Readable.from([xml]));
}

export const INDEX_FILE = 'sitemap.xml';
