import type { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { PagingQuery } from '../../http/paging.js';

/** The formats a product file may have, each with the Content-Type and file extension it is served with. */
export const FILE_FORMATS = {
  EPUB: { contentType: 'application/epub+zip', extension: 'epub' },
  PDF: { contentType: 'application/pdf', extension: 'pdf' },
  MOBI: { contentType: 'application/x-mobipocket-ebook', extension: 'mobi' },
  MP3: { contentType: 'audio/mpeg', extension: 'mp3' },
  M4B: { contentType: 'audio/mp4', extension: 'm4b' },
  ZIP: { contentType: 'application/zip', extension: 'zip' },
} as const;
export type FileFormat = keyof typeof FILE_FORMATS;

export const DownloadListQuery = PagingQuery;

export const DownloadIdParams = Type.Object({
  id: Type.String({
    maxLength: 40,
    description: 'A download item as GET /download gives it: `<orderId>-<fileId>`, or `S<takeId>-<fileId>` for what a subscription gave',
  }),
});

export const DownloadSchema = Type.Object({
  id: Type.String({ description: 'Pass to GET /download/{id}/link' }),
  source: Type.Union([Type.Literal('ORDER'), Type.Literal('SUBSCRIPTION')], {
    description: 'ORDER: bought; SUBSCRIPTION: given by a subscription (POST /subscription/{id}/take), downloadable while it lasts',
  }),
  orderCode: Type.String({ description: "The purchase's order; empty for what a subscription gave" }),
  productId: Type.Integer(),
  productCode: Type.String(),
  title: Type.String(),
  format: Type.String({ description: Object.keys(FILE_FORMATS).join(', ') }),
  contentType: Type.String(),
  size: Type.Integer({ description: 'Bytes' }),
  downloadsUsed: Type.Integer({ description: 'Downloads counted for this purchase (or subscription take), every format together' }),
  downloadsAllowed: Type.Integer(),
  purchasedAt: Type.String({ format: 'date-time', description: 'When it was bought, or taken with the subscription' }),
});

export const DownloadLinkSchema = Type.Object({
  url: Type.String({ description: 'GET it without a bearer token until expiresAt' }),
  expiresAt: Type.String({ format: 'date-time' }),
});

export const DirectDownloadParams = Type.Object({
  token: Type.String({ maxLength: 400, description: 'The signed token of a link from GET /download/{id}/link' }),
});

export const DirectDownloadHeaders = Type.Object({
  range: Type.Optional(Type.String({ description: 'One range: bytes=a-b, bytes=a- or bytes=-n' })),
  'if-range': Type.Optional(
    Type.String({ description: "With a Range: the Range is served only when this is the file's current ETag, otherwise the whole file" }),
  ),
  'if-none-match': Type.Optional(
    Type.String({ description: "The ETag of a copy the client holds (or *): a 304 without the file when it is the file's current one" }),
  ),
  authorization: Type.Optional(Type.String({ description: "Optional; when sent it must be the link's client's" })),
});

/** The body of a download: a stream of the file's bytes, documented as binary. */
export const FileBytes = Type.Unsafe<Readable>({ type: 'string', format: 'binary', description: 'The file, or the range asked for (206)' });

export const ProductFileParams = Type.Object({
  productCode: Type.String({ minLength: 1, maxLength: 64 }),
  format: Type.Union(
    Object.keys(FILE_FORMATS).map((format) => Type.Literal(format)),
    {
      description: Object.entries(FILE_FORMATS)
        .map(([format, { contentType }]) => `${format} (${contentType})`)
        .join(', '),
    },
  ),
});

export const ProductFileQuery = Type.Object({
  filename: Type.Optional(
    Type.String({ maxLength: 150, description: 'The name the browser saves it as; `<productCode>.<extension>` by default' }),
  ),
});

export const ProductFileSchema = Type.Object({
  id: Type.Integer(),
  productCode: Type.String(),
  format: Type.String(),
  contentType: Type.String(),
  size: Type.Integer(),
  filename: Type.String(),
});
