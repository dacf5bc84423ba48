// The client's address: the socket's peer or, behind TRUST_PROXY proxies, the address the outermost of them saw.
// Each proxy appends the address it received the request from to X-Forwarded-For, so only the rightmost entries
// were written by our proxies; everything to their left is whatever the client sent (README, Configuration).
import { isIP } from 'node:net';

/**
 * With `trustProxy` N > 0, the Nth X-Forwarded-For entry from the right (as Express's "trust proxy" hop count),
 * or the leftmost when there are fewer (each was then appended by one of the proxies). No header, or a chosen entry
 * that is not an IP address, gives the socket's address: never an entry further left, which the client wrote.
 * @example clientIpFrom('203.0.113.9, 198.51.100.7', '10.0.0.2', 1) // '198.51.100.7'
 */
export function clientIpFrom(forwardedFor: string | undefined, socketAddress: string | undefined, trustProxy: number): string | null {
  const socketIp = toIp(socketAddress);
  if (trustProxy === 0 || forwardedFor === undefined) return socketIp;
  const entries = forwardedFor.split(',');
  return toIp(entries[Math.max(0, entries.length - trustProxy)]) ?? socketIp;
}

/** An address as proxies write it: trimmed, an optional port (`1.2.3.4:80`, `[::1]:80`) and IPv4-mapped IPv6 undone. */
function toIp(text: string | undefined): string | null {
  let address = text?.trim() ?? '';
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(address);
  if (bracketed) address = bracketed[1]!;
  else if (/^[\d.]+:\d{1,5}$/.test(address)) address = address.slice(0, address.lastIndexOf(':'));
  address = address.replace(/^::ffff:(?=[\d.]+$)/i, '');
  return isIP(address) ? address : null;
}
