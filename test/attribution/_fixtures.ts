// Journeys with hand-computed credits for every model, sent through the real collector. Not a test file itself.
import { chrome } from '../events/_helpers.ts';

export const T = Date.parse('2026-06-30T12:00:00.000Z');
export const minute = 60_000;
export const day = 24 * 60 * minute;
export const iso = (ms: number) => new Date(ms).toISOString();

let counter = 0;

/** A pageview of `anon` at `ms` on https://shop.example, with a query string and/or referrer. */
export function visit(site: string, anon: string, ms: number, options: { query?: string; referrer?: string; user_id?: string } = {}): Record<string, unknown> {
  counter++;
  return {
    id: crypto.randomUUID(),
    site_id: site,
    anon_id: anon,
    ts: iso(ms),
    type: 'pageview',
    url: `https://shop.example/p${counter}${options.query ? `?${options.query}` : ''}`,
    ...(options.referrer ? { referrer: options.referrer } : {}),
    ...(options.user_id ? { user_id: options.user_id } : {}),
    context: { user_agent: chrome },
  };
}

/** A server-side purchase (no url, no referrer). */
export function purchase(site: string, anon: string, ms: number, revenue?: { amount: string; currency: string }, userId?: string): Record<string, unknown> {
  return {
    id: crypto.randomUUID(),
    site_id: site,
    anon_id: anon,
    ts: iso(ms),
    type: 'purchase',
    url: null,
    ...(revenue ? { revenue } : {}),
    ...(userId ? { user_id: userId } : {}),
    context: { user_agent: chrome },
  };
}

export const utm = (source: string, medium: string, campaign: string) => `utm_source=${source}&utm_medium=${medium}&utm_campaign=${campaign}`;
