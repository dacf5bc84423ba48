// Token buckets for the ingest rate-limit gate: per site (events/s) and per client IP (requests/s), burst 10x.
import type { Clock } from '../clock.ts';

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export type TakeResult = { ok: true } | { ok: false; retryAfterSeconds: number };

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  private readonly burst: number;

  constructor(
    private readonly ratePerSecond: number,
    private readonly clock: Clock,
    private readonly maxKeys = 100_000,
  ) {
    this.burst = ratePerSecond * 10;
  }

  /** Takes `amount` tokens from `key`'s bucket, or says how long until they would be there. */
  take(key: string, amount = 1): TakeResult {
    const now = this.clock.now();
    let bucket = this.buckets.get(key);
    if (!bucket) {
      if (this.buckets.size >= this.maxKeys) this.prune(now);
      bucket = { tokens: this.burst, updatedAt: now };
      this.buckets.set(key, bucket);
    } else {
      bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.updatedAt) / 1000) * this.ratePerSecond);
      bucket.updatedAt = now;
    }
    if (bucket.tokens >= amount) {
      bucket.tokens -= amount;
      return { ok: true };
    }
    const missing = Math.min(amount, this.burst) - bucket.tokens;
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(missing / this.ratePerSecond)) };
  }

  /** Full buckets carry no state worth keeping; if that is not enough, the least recently seen go. */
  private prune(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + ((now - bucket.updatedAt) / 1000) * this.ratePerSecond >= this.burst) this.buckets.delete(key);
    }
    const excess = this.buckets.size - Math.floor(this.maxKeys * 0.9);
    if (excess > 0) {
      let removed = 0;
      for (const key of this.buckets.keys()) {
        if (removed++ >= excess) break;
        this.buckets.delete(key);
      }
    }
  }
}
