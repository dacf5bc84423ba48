// When a failed delivery is tried again: exponential backoff (5 s, then about x2-x6 up to 24 h) with ±20 % jitter, 13
// attempts over about 68 hours (close to three days), after which the delivery is failed. A receiver's Retry-After
// (429, 503) replaces the computed wait, within [1 s, 24 h].
import type { Random } from '../clock.ts';

/** The wait after attempt n (index n-1), before jitter. */
export const retryDelaysMs = [5, 30, 120, 600, 1_800, 3_600, 7_200, 14_400, 28_800, 43_200, 57_600, 86_400].map((seconds) => seconds * 1000);
export const maxAttempts = retryDelaysMs.length + 1;
const maxRetryAfterMs = 86_400_000;

/** The wait after `attempts` failed attempts, jittered by ±20 %. @example retryDelayMs(1, random) // 4000-6000 */
export function retryDelayMs(attempts: number, random: Random): number {
  const base = retryDelaysMs[Math.min(attempts, retryDelaysMs.length) - 1]!;
  const unit = random.bytes(4).readUInt32BE(0) / 0x1_0000_0000;
  return Math.round(base * (0.8 + 0.4 * unit));
}

/**
 * A Retry-After header (delta-seconds or an HTTP date) as milliseconds from `now`, within [1 s, 24 h]; undefined when
 * absent or unreadable.
 */
export function parseRetryAfterMs(header: string | undefined, now: number): number | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  let waitMs: number;
  if (/^\d{1,10}$/.test(text)) waitMs = Number(text) * 1000;
  else {
    const date = Date.parse(text);
    if (Number.isNaN(date)) return undefined;
    waitMs = date - now;
  }
  return Math.min(maxRetryAfterMs, Math.max(1000, waitMs));
}
