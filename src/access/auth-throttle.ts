// Failed authentication is throttled per client address (docs/deploy.md, "Throttling failed authentication"): a
// guess of a secret (admin token, API key, share-link token, a webhook signature, a UI sign-in) that fails takes one
// from the address's allowance; once it is spent, every further attempt at a secret from that address is 429
// rate_limited with Retry-After, before the credential is even looked at, so the answer says nothing about it.
import type { H3Event } from 'h3';
import { clientIpFrom } from '../http/client-ip.ts';
import type { AccessContext } from './lookups.ts';
import { ApiError } from '../http/errors.ts';
import { FailureThrottle } from '../http/failure-throttle.ts';

/** What the throttle reads of the app's context: its settings and clock. */
type ThrottleContext = Pick<AccessContext, 'config' | 'clock'>;

/** One throttle per app (a test's apps each have their own), created on first use. */
const throttles = new WeakMap<ThrottleContext, FailureThrottle>();

/**
 * The app's throttle of failed authentication; other keys (`account:<id>`) may share it.
 * @example authThrottleOf(context).recordFailure(`account:${user.id}`);
 */
export function authThrottleOf(context: ThrottleContext): FailureThrottle {
  let throttle = throttles.get(context);
  if (!throttle) {
    throttle = new FailureThrottle({ failuresPerMinute: context.config.authFailuresPerMinute, burst: context.config.authFailureBurst, clock: context.clock });
    throttles.set(context, throttle);
  }
  return throttle;
}

/** The client's address as ingest resolves it (TRUST_PROXY decides whether X-Forwarded-For counts). */
export function clientIpOf(event: H3Event, context: Pick<AccessContext, 'config'>): string | null {
  return clientIpFrom(event.req.headers.get('x-forwarded-for') ?? undefined, event.req.ip, context.config.trustProxy);
}

/**
 * The throttle's key of a client address: `ip:<IPv4>`, or `ip:<the /64>::/64` for IPv6, since one subscriber
 * usually holds a whole /64 and could otherwise step to a fresh address for every guess. Without an address (an
 * in-process request), one shared key.
 * @example clientKeyOf('2001:db8:1:2:3:4:5:6') // 'ip:2001:db8:1:2::/64'
 */
export function clientKeyOf(ip: string | null): string {
  if (ip === null) return 'ip:unknown';
  if (!ip.includes(':')) return `ip:${ip}`;
  return `ip:${ipv6Groups(ip).slice(0, 4).join(':')}::/64`;
}

/** An IPv6 address as its eight groups, lower-case without leading zeros (`::` expanded, a trailing IPv4 split). */
function ipv6Groups(ip: string): string[] {
  let text = ip.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const middle = tail === undefined ? [] : Array.from({ length: 8 - left.length - right.length }, () => '0');
  return [...left, ...middle, ...right].map((group) => Number.parseInt(group, 16).toString(16));
}

/** 429 rate_limited, rendered in the envelope of the route that throws it. */
export function authRateLimited(retryAfterSeconds: number): ApiError {
  return new ApiError(429, 'rate_limited', `Too many failed authentication attempts from this address; retry after ${retryAfterSeconds} s`, undefined, {
    'retry-after': String(retryAfterSeconds),
  });
}

/** Throws 429 when `key` has spent its allowance of failures; call it before looking at the credential. */
export function refuseIfThrottled(context: ThrottleContext, key: string): void {
  const verdict = authThrottleOf(context).check(key);
  if (!verdict.allowed) throw authRateLimited(verdict.retryAfterSeconds);
}

/** Counts one failed authentication of `key`. */
export function recordAuthFailure(context: ThrottleContext, key: string): void {
  authThrottleOf(context).recordFailure(key);
}

/**
 * Checks a secret under the throttle of the client's address: 429 before `check` runs when the address is
 * throttled; `check` answering undefined (the secret is wrong) is counted; a success is neither counted nor slowed.
 * @example const caller = checkSecret(context, clientKeyOf(ip), () => authenticateApiKey(context, token));
 */
export function checkSecret<T>(context: ThrottleContext, key: string, check: () => T | undefined): T | undefined {
  refuseIfThrottled(context, key);
  const result = check();
  if (result === undefined) recordAuthFailure(context, key);
  return result;
}
