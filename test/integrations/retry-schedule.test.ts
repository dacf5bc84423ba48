// The retry schedule: backoff with ±20 % jitter at its extremes, and Retry-After read as seconds or an HTTP date,
// clamped to [1 s, 24 h].
import { describe, expect, it } from 'vitest';
import type { Random } from '../../src/clock.ts';
import { maxAttempts, parseRetryAfterMs, retryDelayMs, retryDelaysMs } from '../../src/integrations/retry-schedule.ts';

const fixedRandom = (word: number): Random => ({ uuid: () => '', bytes: (length) => Buffer.alloc(length, word) });
const now = Date.parse('2026-03-01T12:00:00.000Z');

describe('retryDelayMs', () => {
  it('jitters each wait within ±20 %, and keeps the last wait past the schedule', () => {
    expect(retryDelayMs(1, fixedRandom(0x00))).toBe(4_000);
    expect(retryDelayMs(1, fixedRandom(0xff))).toBe(6_000);
    expect(retryDelayMs(12, fixedRandom(0x00))).toBe(86_400_000 * 0.8);
    expect(retryDelayMs(20, fixedRandom(0x00))).toBe(86_400_000 * 0.8);
    expect(maxAttempts).toBe(retryDelaysMs.length + 1);
    expect(retryDelaysMs.every((delay, index) => index === 0 || delay > retryDelaysMs[index - 1]!)).toBe(true);
  });
});

describe('parseRetryAfterMs', () => {
  it.each([
    [undefined, undefined],
    ['soon', undefined],
    ['120', 120_000],
    [' 7 ', 7_000],
    ['0', 1_000],
    ['86400', 86_400_000],
    ['86401', 86_400_000],
    ['Sun, 01 Mar 2026 12:02:00 GMT', 120_000],
    ['Sun, 01 Mar 2026 11:00:00 GMT', 1_000],
  ])('reads %j as %j ms', (header, expected) => {
    expect(parseRetryAfterMs(header, now)).toBe(expected);
  });
});
