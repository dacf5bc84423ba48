// The client's address: the socket peer, or the first X-Forwarded-For hop when TRUST_PROXY is on.
import { isIP } from 'node:net';

export function clientIpFrom(forwardedFor: string | undefined, socketAddress: string | undefined, trustProxy: boolean): string | null {
  if (trustProxy) {
    const first = forwardedFor?.split(',')[0]?.trim();
    if (first && isIP(first)) return first;
  }
  const ip = socketAddress?.replace(/^::ffff:/, '');
  return ip && isIP(ip) ? ip : null;
}
