// The SSRF guard of outbound deliveries: an address is refused when it is not a public unicast address (loopback,
// private, link-local and cloud metadata, CGNAT, unspecified, multicast, reserved, unique-local IPv6, and the IPv4
// these hide in IPv4-mapped and NAT64 IPv6). The check runs in the DNS lookup the connection itself uses, so the
// address checked is the address connected: an answer that changes between a check and the connect cannot slip by.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

const refusedIpv4 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", 0.0.0.0
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, 169.254.169.254 metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, 255.255.255.255
] as const) {
  refusedIpv4.addSubnet(network, prefix, 'ipv4');
}

const refusedIpv6 = new BlockList();
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128],
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
  ['2001:db8::', 32], // documentation
  ['100::', 64], // discard
] as const) {
  refusedIpv6.addSubnet(network, prefix, 'ipv6');
}

/**
 * True when a delivery may not connect to `address` (an IPv4 or IPv6 literal; anything else is refused too).
 * @example isRefusedAddress('169.254.169.254') // true
 */
export function isRefusedAddress(address: string): boolean {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const family = isIP(bare);
  if (family === 4) return refusedIpv4.check(bare, 'ipv4');
  if (family !== 6) return true;
  const embedded = embeddedIpv4(bare);
  if (embedded !== undefined) return embedded === null || refusedIpv4.check(embedded, 'ipv4');
  return refusedIpv6.check(bare, 'ipv6');
}

/**
 * The IPv4 address an IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) or NAT64 (64:ff9b::/96) address
 * carries; undefined when it carries none, null when it cannot be read.
 */
function embeddedIpv4(address: string): string | null | undefined {
  const groups = expandIpv6(address.toLowerCase());
  if (!groups) return null;
  const mapped = groups.slice(0, 5).every((group) => group === 0) && (groups[5] === 0xffff || groups[5] === 0);
  const nat64 = groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((group) => group === 0);
  if (!mapped && !nat64) return undefined;
  // ::/128 and ::1 are not IPv4-compatible addresses: the IPv6 list decides them.
  if (groups[5] === 0 && !nat64 && groups[6] === 0) return undefined;
  return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
}

/** The eight 16-bit groups of an IPv6 literal (dotted IPv4 tail and :: compression understood). */
function expandIpv6(address: string): number[] | undefined {
  let text = address.split('%')[0]!;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const parts = dotted[1]!.split('.').map(Number);
    text = text.slice(0, -dotted[1]!.length) + `${((parts[0]! << 8) | parts[1]!).toString(16)}:${((parts[2]! << 8) | parts[3]!).toString(16)}`;
  }
  const [head, tail, ...rest] = text.split('::');
  if (rest.length > 0) return undefined;
  const parse = (part: string | undefined) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const first = parse(head);
  const last = parse(tail);
  const missing = 8 - first.length - last.length;
  if (tail === undefined ? missing !== 0 : missing < 0) return undefined;
  const groups = [...first, ...new Array<number>(tail === undefined ? 0 : missing).fill(0), ...last];
  return groups.length === 8 && groups.every((group) => Number.isInteger(group) && group >= 0 && group <= 0xffff) ? groups : undefined;
}

/**
 * True when a URL's hostname is an IP literal (as the URL parser wrote it: `[…]` around IPv6) that is refused. Such
 * a host is connected to without a lookup, so it is checked here. A name gives false: its lookup checks it.
 * @example isRefusedLiteralHost(new URL('http://2130706433/').hostname) // true: the parser wrote 127.0.0.1
 */
export function isRefusedLiteralHost(hostname: string): boolean {
  const bare = hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(bare) !== 0 && isRefusedAddress(bare);
}

export class RefusedAddressError extends Error {
  readonly code = 'ERR_WEBHOOK_ADDRESS_REFUSED';
  constructor(readonly host: string, readonly address: string) {
    super(`${host} resolves to ${address}, a private or reserved address`);
  }
}

/**
 * A `lookup` for http.request: resolves as Node would, then refuses the whole answer when any address in it is
 * refused (a name that also resolves privately is not trusted with the public one).
 * @example http.request(url, { lookup: guardedLookup() })
 */
export function guardedLookup(resolve: typeof dnsLookup = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const refused = addresses.find((entry) => isRefusedAddress(entry.address));
      if (refused || addresses.length === 0) return callback(new RefusedAddressError(hostname, refused?.address ?? '(none)'), '', 0);
      if ((options as { all?: boolean }).all) return (callback as unknown as (error: null, all: LookupAddress[]) => void)(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}
