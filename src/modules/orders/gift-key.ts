import { hmacHex, sameHmacHex } from '../../infra/secrets.js';

// The key of the downloads an order bought for someone else, which the receiver's order mail links to
// (GET /gift-download/{key}): `<orderId>.<expiresAt>.<hmac>`, the HMAC with the order checksum's secret
// over what the key gives, so that it cannot be made for another order or stretched past its time. It
// is not the order's checksum: that reads the whole order (the buyer's address, what was paid) and is
// the buyer's; this lists and links the order's files and nothing else.

const KEY = /^([1-9][0-9]{0,15})\.([1-9][0-9]{0,15})\.([0-9a-f]{64})$/;

export interface GiftKey {
  orderId: number;
  /** Unix ms. */
  expiresAt: number;
}

export function giftKeys(secret: string) {
  const mac = ({ orderId, expiresAt }: GiftKey) => hmacHex(secret, `gift-download:${orderId}.${expiresAt}`);
  return {
    of: (key: GiftKey) => `${key.orderId}.${key.expiresAt}.${mac(key)}`,
    /** The key's order and expiry when it is genuine (expired or not), else undefined. */
    verify(text: string): GiftKey | undefined {
      const parts = KEY.exec(text);
      if (!parts) return undefined;
      const key = { orderId: Number(parts[1]), expiresAt: Number(parts[2]) };
      return sameHmacHex(mac(key), parts[3]) ? key : undefined;
    },
  };
}
