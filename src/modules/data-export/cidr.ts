import { BlockList, isIP } from 'node:net';

/** A CIDR block as given (`10.0.0.0/8`, `2001:db8::/32`, or one address), normalised, or undefined when malformed. */
export function parseCidr(value: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined {
  const [address = '', prefixText, ...rest] = value.trim().split('/');
  if (rest.length > 0) return undefined;
  const version = isIP(address);
  if (version === 0) return undefined;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  const max = version === 4 ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (prefix > max) return undefined;
  return { address: address.toLowerCase(), prefix, family };
}

export function formatCidr(cidr: { address: string; prefix: number }): string {
  return `${cidr.address}/${cidr.prefix}`;
}

/** An allowlist of CIDR blocks; an empty one allows every address. */
export interface Allowlist {
  allows(ip: string): boolean;
}

export function createAllowlist(cidrs: readonly string[]): Allowlist {
  if (cidrs.length === 0) return { allows: () => true };
  const list = new BlockList();
  for (const text of cidrs) {
    const cidr = parseCidr(text);
    if (cidr !== undefined) list.addSubnet(cidr.address, cidr.prefix, cidr.family);
  }
  return {
    allows(ip) {
      const version = isIP(ip);
      if (version === 4) return list.check(ip, 'ipv4');
      if (version !== 6) return false;
      if (list.check(ip, 'ipv6')) return true;
      // An IPv4 client on a dual-stack socket shows up as ::ffff:a.b.c.d; IPv4 blocks must still match it.
      const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
      return mapped !== null && list.check(mapped[1]!, 'ipv4');
    },
  };
}
