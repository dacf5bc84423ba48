// A throttle of failures by key (`ip:<address>` today, `account:<id>` for password sign-in later): each key has a
// bucket of `burst` allowed failures that refills at `failuresPerMinute`. Only failures take from it; a key whose
// bucket is empty is refused until one failure is allowed again. Memory is bounded: at most `maxKeys` keys, the
// least recently failed evicted first, and a bucket that has refilled is forgotten (it holds nothing a new one
// would not).
import type { Clock } from '../clock.ts';

export interface FailureThrottleOptions {
  failuresPerMinute: number;
  burst: number;
  clock: Clock;
  /** Keys remembered at most (default 100,000: about 25 MiB of heap when full of IPv6 keys, measured). */
  maxKeys?: number;
}

interface Bucket {
  /** Failures still allowed, fractional while it refills. */
  allowance: number;
  updatedAt: number;
}

export type ThrottleVerdict = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export const defaultMaxThrottledKeys = 100_000;

/**
 * @example
 * const throttle = new FailureThrottle({ failuresPerMinute: 10, burst: 20, clock });
 * if (!throttle.check('ip:203.0.113.7').allowed) throw tooMany(); // before looking at the credential
 * if (!valid) throttle.recordFailure('ip:203.0.113.7');
 */
export class FailureThrottle {
  /** In order of the last failure, oldest first (a Map keeps insertion order; a failure re-inserts its key). */
  private readonly buckets = new Map<string, Bucket>();
  /** Milliseconds for one failure to be allowed again. */
  private readonly refillMs: number;
  private readonly maxKeys: number;

  constructor(private readonly options: FailureThrottleOptions) {
    this.refillMs = 60_000 / options.failuresPerMinute;
    this.maxKeys = options.maxKeys ?? defaultMaxThrottledKeys;
  }

  /** Whether `key` may make one more attempt now; refused, how many whole seconds until it may. */
  check(key: string): ThrottleVerdict {
    const bucket = this.buckets.get(key);
    if (!bucket) return { allowed: true };
    const allowance = this.allowanceOf(bucket, this.options.clock.now());
    // The tolerance absorbs float rounding: once Retry-After has passed, the attempt is allowed.
    if (allowance >= 1 - 1e-9) return { allowed: true };
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(((1 - allowance) * this.refillMs) / 1000 - 1e-9)) };
  }

  /** Counts one failure of `key`. Successes are never recorded, so they neither count nor clear earlier failures. */
  recordFailure(key: string): void {
    const now = this.options.clock.now();
    const bucket = this.buckets.get(key);
    const allowance = bucket ? this.allowanceOf(bucket, now) : this.options.burst;
    this.buckets.delete(key);
    this.buckets.set(key, { allowance: Math.max(0, allowance - 1), updatedAt: now });
    this.forgetRefilled(now);
    if (this.buckets.size > this.maxKeys) this.buckets.delete(this.buckets.keys().next().value!);
  }

  /**
   * Gives back one failure recorded in advance: a check slower than a request (a password hash) counts its attempt
   * before it runs, so concurrent guesses cannot all pass one check, and forgives it when the attempt succeeds.
   */
  forgive(key: string): void {
    const bucket = this.buckets.get(key);
    if (!bucket) return;
    const now = this.options.clock.now();
    bucket.allowance = Math.min(this.options.burst, this.allowanceOf(bucket, now) + 1);
    bucket.updatedAt = now;
  }

    /** Keys remembered now (for tests of the bound). */
  get size(): number {
    return this.buckets.size;
  }

  private allowanceOf(bucket: Bucket, now: number): number {
    return Math.min(this.options.burst, bucket.allowance + Math.max(0, now - bucket.updatedAt) / this.refillMs);
  }

  /**
   * From the oldest failure on, forgets buckets that have refilled, stopping at the first that has not: amortised
   * constant work per failure. A refilled bucket behind a younger one stays until its turn or eviction.
   */
  private forgetRefilled(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (this.allowanceOf(bucket, now) < this.options.burst) return;
      this.buckets.delete(key);
    }
  }
}
