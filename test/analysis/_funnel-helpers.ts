// Shared pieces of the analysis tests: posting events at fixed times, a funnel query builder and the calls.
// Not a test file itself (vitest only collects *.test.ts).
import { expect } from 'vitest';
import { makeEvent, type TestServer } from '../_setup.ts';
import type { TestResponse } from '../_http.ts';

export const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
export const iphone = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';

/** epoch ms of 2026-03-10T00:00Z plus minutes (and ms). */
export function at(minutes: number, ms = 0): number {
  return Date.parse('2026-03-10T00:00:00.000Z') + minutes * 60_000 + ms;
}

export interface EventSpec {
  site: string;
  anon: string;
  ts: number;
  type?: string;
  path?: string;
  user?: string;
  agent?: string;
  props?: Record<string, unknown>;
  internal?: boolean;
  referrer?: string;
}

/** Posts the events through the real collector (s2s, one request per site), each at its own time. */
export async function postEvents(server: TestServer, specs: EventSpec[]): Promise<void> {
  const bySite = new Map<string, Record<string, unknown>[]>();
  for (const spec of specs) {
    const event = makeEvent(spec.site, {
      anon_id: spec.anon,
      ts: new Date(spec.ts).toISOString(),
      type: spec.type ?? 'pageview',
      url: `https://shop.example${spec.path ?? '/'}`,
      context: { user_agent: spec.agent ?? chrome },
      ...(spec.user ? { user_id: spec.user } : {}),
      ...(spec.props ? { props: spec.props } : {}),
      ...(spec.internal ? { internal: true } : {}),
      ...(spec.referrer ? { referrer: spec.referrer } : {}),
    });
    const list = bySite.get(spec.site) ?? [];
    list.push(event);
    bySite.set(spec.site, list);
  }
  for (const [site, events] of bySite) {
    for (let offset = 0; offset < events.length; offset += 500) {
      const response = await server.request('POST', '/s2s/events', { token: site, body: events.slice(offset, offset + 500) });
      expect(response.status, response.text).toBe(202);
    }
  }
}

export interface QueryOptions {
  site?: string;
  allSites?: boolean;
  steps: Record<string, unknown>[];
  window?: { value: number; unit: string };
  from?: string;
  to?: string;
  [key: string]: unknown;
}

export function funnelQuery(options: QueryOptions): Record<string, unknown> {
  const { site, allSites, steps, window, from, to, ...rest } = options;
  return {
    ...(allSites ? { scope: 'all-sites' } : { site_id: site }),
    from: from ?? '2026-03-01',
    to: to ?? '2026-03-15',
    steps,
    window: window ?? { value: 1, unit: 'days' },
    ...rest,
  };
}

export function funnelPath(slug: string, panel?: 'correlation' | 'explanation'): string {
  return `/workspaces/${slug}/analysis/funnels-v2${panel ? `/${panel}` : ''}`;
}

export async function runFunnel(server: TestServer, slug: string, query: Record<string, unknown>, token?: string | null): Promise<TestResponse> {
  return server.request('POST', funnelPath(slug), { body: query, token });
}

export async function funnelOk(server: TestServer, slug: string, query: Record<string, unknown>): Promise<any> {
  const response = await runFunnel(server, slug, query);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

/** Step counts of an answer, in order. */
export function counts(body: any): number[] {
  return body.data.steps.map((step: { count: number }) => step.count);
}

/** The structured envelope of a refusal, with one detail at `path` when given. */
export function expectRefusal(response: TestResponse, status: number, code: string, path?: string): void {
  expect(response.status, response.text).toBe(status);
  if (path === undefined) expect(response.body.error).toMatchObject({ code, message: expect.any(String) });
  else expect(response.body).toEqual({ error: { code, message: expect.any(String), details: [{ path, message: expect.any(String) }] } });
}
