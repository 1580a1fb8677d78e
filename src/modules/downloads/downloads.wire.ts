import type { Static } from '@sinclair/typebox';
import type { DownloadLinkSchema, DownloadSchema } from './downloads.schemas.js';
import type { DownloadItem } from './downloads.service.js';

// The answers of the download routes: a client's list and a guest order's (GET /download,
// GET /order/{code}/download) give the same items, and every link the same shape.

const iso = (ms: number) => new Date(ms).toISOString();

export function toDownloadWire(item: DownloadItem): Static<typeof DownloadSchema> {
  return {
    id: item.id,
    source: item.takeId === null ? 'ORDER' : 'SUBSCRIPTION',
    orderCode: item.orderCode,
    productId: item.productId,
    productCode: item.productCode,
    title: item.title,
    format: item.format,
    contentType: item.contentType,
    size: item.size,
    downloadsUsed: item.used,
    downloadsAllowed: item.allowed,
    purchasedAt: iso(item.entitledAt),
  };
}

/** The link's URL on this API (GET /direct-download/{token}) and when it stops working. */
export function toLinkWire(
  api: { publicUrl: string; basePath: string },
  link: { token: string; expiresAt: number },
): Static<typeof DownloadLinkSchema> {
  return { url: `${api.publicUrl}${api.basePath}/direct-download/${link.token}`, expiresAt: iso(link.expiresAt) };
}
