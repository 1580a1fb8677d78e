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

export interface WrittenSection {
  files: string[];
}

/**
 * Writes the section's URLs to `<stem>-1.xml`, `<stem>-2.xml` ..., at most `maxUrls` each, and
 * answers the file names. `counted.urls` grows as URLs are written, so a failure still tells how
 * far it got. A file that fails half-way is not stored (the file store writes a file whole or not).
 */
export async function writeSectionFiles(
  fileStore: FileStore,
  target: { storeCode: string; stem: string; baseUrl: string; maxUrls: number },
  urls: AsyncIterable<SitemapUrl>,
  counted: { urls: number },
): Promise<WrittenSection> {
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
        chunk.push(`<url><loc>${escapeXml(target.baseUrl + url.path)}</loc><lastmod>${iso(url.lastmod)}</lastmod></url>\n`);
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
  }
  return { files };
}

/** The sitemap index: one entry per file, at `fileUrl(file)`, with its last generation time. */
export async function writeIndexFile(
  fileStore: FileStore,
  storeCode: string,
  entries: ReadonlyArray<{ file: string; lastmod: number }>,
  fileUrl: (file: string) => string,
): Promise<void> {
  const lines = entries.map(
    (entry) => `<sitemap><loc>${escapeXml(fileUrl(entry.file))}</loc><lastmod>${iso(entry.lastmod)}</lastmod></sitemap>\n`,
  );
  const xml = `${XML_HEAD}<sitemapindex xmlns="${NS}">\n${lines.join('')}</sitemapindex>\n`;
  await fileStore.put(storeFileKey(storeCode, INDEX_FILE), Readable.from([xml]));
}

export const INDEX_FILE = 'sitemap.xml';
