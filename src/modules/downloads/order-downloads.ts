import type { Db } from '../../db/database.js';
import type { PageRequest } from '../../http/paging.js';
import { lazyLinkSigner } from './download-link.js';
import type { DownloadsSection } from './downloads.config.js';
import { createGiftLink, createOrderLink, listOrderDownloads, type ReadOrder } from './downloads.service.js';
import { toDownloadWire, toLinkWire } from './downloads.wire.js';

// One order's downloads, for the orders module's routes (GET /order/{code}/download and its links):
// the orders module decides who may read the order (its client, or a guest with the order's
// checksum, the link of the order's mail), this module what the order gives and its signed links.

export interface OrderDownloads {
  list(order: ReadOrder, page: PageRequest): Promise<{ items: Array<ReturnType<typeof toDownloadWire>>; total: number }>;
  link(order: ReadOrder, id: string, now: number): Promise<ReturnType<typeof toLinkWire>>;
  /** A link for the receiver of the order's downloads bought for them (the orders module checked their key). */
  giftLink(orderId: number, id: string, now: number): Promise<ReturnType<typeof toLinkWire>>;
}

export function orderDownloads(db: Db, config: { downloads: DownloadsSection; basePath: string; publicUrl: string }): OrderDownloads {
  const signerAt = lazyLinkSigner(db, config.downloads.linkSecret);
  const rules = { limit: config.downloads.limit, ttlMs: config.downloads.linkTtlMs };
  return {
    async list(order, page) {
      const { items, total } = await listOrderDownloads(db, order, page, rules.limit);
      return { items: items.map(toDownloadWire), total };
    },
    async link(order, id, now) {
      return toLinkWire(config, await createOrderLink(db, await signerAt(now), order, id, rules, now));
    },
    async giftLink(orderId, id, now) {
      return toLinkWire(config, await createGiftLink(db, await signerAt(now), orderId, id, rules, now));
    },
  };
}
