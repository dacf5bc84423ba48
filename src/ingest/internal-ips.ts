// INTERNAL_IPS: addresses and CIDR ranges (IPv4 and IPv6) whose traffic is tagged internal.
import { BlockList, isIP } from 'node:net';

export interface InternalIpMatcher {
  isInternal(ip: string | null): boolean;
}

/** Throws on an entry that is neither an IP nor a CIDR range, so a typo stops the server at start. */
export function createInternalIpMatcher(entries: string[]): InternalIpMatcher {
  const list = new BlockList();
  for (const entry of entries) {
    const [address, prefix] = entry.split('/');
    const family = isIP(address ?? '');
    if (family === 0) throw new Error(`INTERNAL_IPS: ${entry} is not an IP address or CIDR range`);
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) {
      list.addAddress(address!, type);
    } else {
      const bits = Number(prefix);
      if (!/^\d+$/.test(prefix) || bits > (family === 4 ? 32 : 128)) throw new Error(`INTERNAL_IPS: ${entry} has a bad prefix length`);
      list.addSubnet(address!, bits, type);
    }
  }
  return {
    isInternal: (ip) => {
      if (!ip || entries.length === 0) return false;
      const family = isIP(ip);
      if (family === 0) return false;
      return list.check(ip, family === 4 ? 'ipv4' : 'ipv6');
    },
  };
}
