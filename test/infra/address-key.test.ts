import { describe, expect, it } from 'vitest';
import { addressKey } from '../../src/infra/address-key.js';

describe('addressKey', () => {
  it('keeps an IPv4 address', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
  });

  it('counts an IPv4-mapped IPv6 address as its IPv4 address', () => {
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('counts every address of one IPv6 /64 as one client, however it is written', () => {
    const keys = ['2001:db8:0:1::1', '2001:db8:0:1:ffff:1:2:3', '2001:0db8:0000:0001:0000:0000:0000:0009', '2001:DB8:0:1::abcd'].map(
      addressKey,
    );
    expect(new Set(keys)).toEqual(new Set(['2001:db8:0:1::/64']));
    expect(addressKey('2001:db8:0:2::1')).toBe('2001:db8:0:2::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('fe80::1')).toBe('fe80:0:0:0::/64');
  });
});
