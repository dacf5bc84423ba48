// GET /sites/:siteId/events/list-v2 over real HTTP: the range's events in ingest order, every limit at its edge,
// paging by cursor while events keep arriving (nothing lost or repeated), refused cursors, bots and internal
// traffic, visit filters and the all-sites scope.
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventListAnswer } from '../../src/events/answers.ts';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { googlebot, iphone, send, wireEvent } from './_helpers.ts';

const clock = manualClock('2026-03-20T12:00:00.000Z');
const at = (iso: string) => ({ ts: iso });

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ clock });
  await seedWorkspace(server, 'acme', { sites: ['order', 'edges', 'many', 'paging', 'traffic', 'visits', 'all-a', 'all-b'] });
  await seedWorkspace(server, 'solo', { sites: ['all-c'] });
});
afterAll(() => server.close());

async function list(site: string, query: string) {
  const response = await server.request('GET', `/sites/${site}/events/list-v2?${query}`);
  if (response.status === 200) expect(v.safeParse(EventListAnswer, response.body).issues).toBeUndefined();
  return response;
}

const ids = (response: { body: any }) => (response.body.data.events as { id: string }[]).map((event) => event.id);

describe('list-v2', () => {
  it('lists the events whose time falls in the range, oldest ingest first (not by event time), with every field', async () => {
    const sent = await send(server, 'order', [
      wireEvent('order', at('2026-03-02T10:00:00.000Z')),
      wireEvent('order', { ...at('2026-03-01T09:00:00.000Z'), type: 'signup', props: { plan: 'pro', seats: 3 }, referrer: 'https://www.google.com/search' }),
      wireEvent('order', at('2026-02-28T23:59:59.999Z')),
      wireEvent('order', { ...at('2026-03-03T00:00:00.000Z'), context: { user_agent: iphone } }),
    ]);
    const later = await send(server, 'order', [wireEvent('order', at('2026-03-01T00:00:00.000Z'))]);
    const response = await list('order', 'from=2026-03-01&to=2026-03-02');
    expect(response.status).toBe(200);
    expect(ids(response)).toEqual([sent[0]!.id, sent[1]!.id, later[0]!.id]);
    expect(response.body.data.events[1]).toEqual({
      id: sent[1]!.id,
      type: 'signup',
      ts: '2026-03-01T09:00:00.000Z',
      received_at: '2026-03-20T12:00:00.000Z',
      anon_id: sent[1]!.anon_id,
      url: 'https://example.com/page',
      path: '/page',
      referrer: 'https://www.google.com/search',
      source: 'google.com',
      country: null,
      region: null,
      city: null,
      browser: 'Chrome',
      os: 'Windows',
      device_type: 'desktop',
      props: { plan: 'pro', seats: 3 },
    });
    expect(response.body.meta).toMatchObject({
      scope: { site_id: 'order' },
      range: { from: '2026-03-01', to: '2026-03-02' },
      timezone: 'UTC',
      filters: { internal: 'exclude', bots: 'exclude' },
      freshness: { watermark: '2026-03-20T12:00:00.000Z' },
      completeness: { complete: true },
      warnings: [],
      truncated: false,
      cursor: { next: null },
      limit: 50,
      computed_from: 'event_log',
    });
  });

  it('counts the first and last instants of the range in, the instants just outside out', async () => {
    const inside = await send(server, 'edges', [wireEvent('edges', at('2026-03-10T00:00:00.000Z')), wireEvent('edges', at('2026-03-11T23:59:59.999Z'))]);
    await send(server, 'edges', [wireEvent('edges', at('2026-03-09T23:59:59.999Z')), wireEvent('edges', at('2026-03-12T00:00:00.000Z'))]);
    expect(ids(await list('edges', 'from=2026-03-10&to=2026-03-11'))).toEqual(inside.map((event) => event.id));
    const empty = await list('edges', 'from=2026-01-01&to=2026-01-31');
    expect(empty.body.data.events).toEqual([]);
    expect(empty.body.meta.cursor).toEqual({ next: null });
  });

  it('takes limit 1 to 200 (default 50) and refuses 0, 201 and non-numbers', async () => {
    const sent = await send(server, 'many', Array.from({ length: 201 }, (_, index) => wireEvent('many', at(new Date(Date.parse('2026-03-15T00:00:00.000Z') + index * 1000).toISOString()))));
    const range = 'from=2026-03-15&to=2026-03-15';
    const byDefault = await list('many', range);
    expect(byDefault.body.data.events).toHaveLength(50);
    expect(byDefault.body.meta).toMatchObject({ limit: 50, truncated: true, cursor: { next: expect.any(String) } });
    const one = await list('many', `${range}&limit=1`);
    expect(ids(one)).toEqual([sent[0]!.id]);
    const most = await list('many', `${range}&limit=200`);
    expect(ids(most)).toEqual(sent.slice(0, 200).map((event) => event.id));
    expect(most.body.meta.limit).toBe(200);
    const rest = await list('many', `${range}&limit=200&cursor=${encodeURIComponent(most.body.meta.cursor.next)}`);
    expect(ids(rest)).toEqual([sent[200]!.id]);
    expect(rest.body.meta).toMatchObject({ truncated: false, cursor: { next: null } });
    for (const limit of ['0', '201', 'ten', '-1', '1.5', '']) {
      const refused = await list('many', `${range}&limit=${limit}`);
      expect(refused.status, limit).toBe(400);
      expect(refused.body.error).toEqual({ code: 'invalid_param', message: expect.any(String), details: [{ path: '/limit', message: expect.any(String) }] });
    }
  });

  it('pages with the cursor while events keep arriving: nothing lost, nothing repeated', async () => {
    const minute = (index: number) => at(new Date(Date.parse('2026-03-19T08:00:00.000Z') + index * 60_000).toISOString());
    const expected = (await send(server, 'paging', Array.from({ length: 25 }, (_, index) => wireEvent('paging', minute(index))))).map((event) => event.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await list('paging', `from=2026-03-19&to=2026-03-20&limit=10${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(page.status).toBe(200);
      seen.push(...ids(page));
      cursor = page.body.meta.cursor.next;
      expect(page.body.meta.truncated).toBe(cursor !== null);
      pages++;
      // While the client pages: new events, some with event times earlier than those already shown.
      if (cursor !== null && pages <= 3) expected.push(...(await send(server, 'paging', [wireEvent('paging', minute(-pages)), wireEvent('paging', minute(100 + pages))])).map((event) => event.id));
    } while (cursor !== null);
    expect(pages).toBe(3);
    expect(seen).toEqual(expected);
    expect(new Set(seen).size).toBe(29);
  });

  it('refuses forged, altered and foreign cursors with 400 invalid_param', async () => {
    const range = 'from=2026-03-15&to=2026-03-15&limit=5';
    const next = (await list('many', range)).body.meta.cursor.next as string;
    const [body, signature] = next.split('.') as [string, string];
    const forgedState = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), s: 1 })).toString('base64url');
    const pagesCursor = await server.request('GET', '/sites/many/reports/pages-v2?from=2026-03-15&to=2026-03-15&limit=1');
    const cases = [
      'not-a-cursor',
      // The first character changed: every bit of it counts (the last one's low bits are padding, so a changed last
      // character could decode to the same signature).
      `${body}.${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`,
      `${forgedState}.${signature}`,
      `${next}.extra`,
      pagesCursor.body?.meta?.cursor?.next ?? 'x.y',
    ];
    for (const cursor of cases) {
      const refused = await list('many', `${range}&cursor=${encodeURIComponent(cursor)}`);
      expect(refused.status, cursor).toBe(400);
      expect(refused.body.error).toEqual({ code: 'invalid_param', message: expect.any(String), details: [{ path: '/cursor', message: expect.any(String) }] });
    }
    // A cursor is bound to its scope, range and filters (not to limit).
    for (const other of ['from=2026-03-14&to=2026-03-15', 'from=2026-03-15&to=2026-03-15&path=/page', 'from=2026-03-15&to=2026-03-15&internal=include']) {
      expect((await list('many', `${other}&cursor=${encodeURIComponent(next)}`)).status, other).toBe(400);
    }
    expect((await list('many', `from=2026-03-15&to=2026-03-15&limit=7&cursor=${encodeURIComponent(next)}`)).status).toBe(200);
  });

  it.each([
    ['367 days', 'from=2025-03-19&to=2026-03-20', 200, undefined],
    ['368 days', 'from=2025-03-18&to=2026-03-20', 400, 'range_too_large'],
    ['from after to', 'from=2026-03-20&to=2026-03-19', 400, 'invalid_date_range'],
    ['no from', 'to=2026-03-20', 400, 'invalid_date_param'],
    ['a malformed date', 'from=2026-02-30&to=2026-03-20', 400, 'invalid_date_param'],
    ['20 filter values', `from=2026-03-01&to=2026-03-20&country=${Array.from({ length: 20 }, (_, index) => `C${index}`).join(',')}`, 200, undefined],
    ['21 filter values', `from=2026-03-01&to=2026-03-20&country=${Array.from({ length: 21 }, (_, index) => `C${index}`).join(',')}`, 400, 'too_many_values'],
    ['21 path values', `from=2026-03-01&to=2026-03-20&path=${Array.from({ length: 21 }, (_, index) => `/p${index}`).join(',')}`, 400, 'too_many_values'],
    ['a timezone other than UTC', 'from=2026-03-01&to=2026-03-20&timezone=Europe/Paris', 400, 'unsupported_timezone'],
    ['bots=include', 'from=2026-03-01&to=2026-03-20&bots=include', 400, 'unsupported_bots'],
    ['timezone=UTC and bots=exclude', 'from=2026-03-01&to=2026-03-20&timezone=UTC&bots=exclude', 200, undefined],
    ['an unknown scope', 'from=2026-03-01&to=2026-03-20&scope=everything', 400, 'invalid_param'],
  ])('%s → %s', async (_name, query, status, code) => {
    const response = await list('order', query);
    expect(response.status, response.text).toBe(status);
    if (code) expect(response.body.error.code).toBe(code);
  });

  it('never lists bots; lists internal traffic only with internal=include', async () => {
    const sent = await send(server, 'traffic', [
      wireEvent('traffic', { ...at('2026-03-18T10:00:00.000Z'), context: { user_agent: googlebot } }),
      wireEvent('traffic', { ...at('2026-03-18T10:00:01.000Z'), internal: true }),
      wireEvent('traffic', at('2026-03-18T10:00:02.000Z')),
    ]);
    expect(ids(await list('traffic', 'from=2026-03-18&to=2026-03-18'))).toEqual([sent[2]!.id]);
    const withInternal = await list('traffic', 'from=2026-03-18&to=2026-03-18&internal=include');
    expect(ids(withInternal)).toEqual([sent[1]!.id, sent[2]!.id]);
    expect(withInternal.body.meta.filters).toEqual({ internal: 'include', bots: 'exclude' });
  });

  it('selects events by their visit\'s first event (source, device…) and by their own path, as the V2 reports do', async () => {
    // One visit that arrived from google (its later pageview has no referrer), one direct visit on a phone.
    const google = await send(server, 'visits', [
      wireEvent('visits', { ...at('2026-03-17T10:00:00.000Z'), anon_id: 'g', referrer: 'https://www.google.com/', url: 'https://s.example/a' }),
      wireEvent('visits', { ...at('2026-03-17T10:05:00.000Z'), anon_id: 'g', url: 'https://s.example/b' }),
    ]);
    const direct = await send(server, 'visits', [wireEvent('visits', { ...at('2026-03-17T10:01:00.000Z'), anon_id: 'd', url: 'https://s.example/a', context: { user_agent: iphone } })]);
    const range = 'from=2026-03-17&to=2026-03-17';
    expect(ids(await list('visits', `${range}&source=google.com`))).toEqual(google.map((event) => event.id));
    expect(ids(await list('visits', `${range}&source=direct`))).toEqual([direct[0]!.id]);
    expect(ids(await list('visits', `${range}&device=mobile`))).toEqual([direct[0]!.id]);
    expect(ids(await list('visits', `${range}&device=desktop,tablet&browser=Chrome`))).toEqual(google.map((event) => event.id));
    expect(ids(await list('visits', `${range}&path=/a`))).toEqual([google[0]!.id, direct[0]!.id]);
    expect(ids(await list('visits', `${range}&path=/b&source=google.com`))).toEqual([google[1]!.id]);
    const filtered = await list('visits', `${range}&path=/a,/b&country=US`);
    expect(filtered.body.data.events).toEqual([]);
    expect(filtered.body.meta.filters).toEqual({ path: ['/a', '/b'], country: ['US'], internal: 'exclude', bots: 'exclude' });
  });

  it('with scope=all-sites lists every site of the workspace, in ingest order across them', async () => {
    const a = await send(server, 'all-a', [wireEvent('all-a', at('2026-03-16T10:00:00.000Z'))]);
    const b = await send(server, 'all-b', [wireEvent('all-b', at('2026-03-16T09:00:00.000Z'))]);
    const a2 = await send(server, 'all-a', [wireEvent('all-a', at('2026-03-16T08:00:00.000Z'))]);
    await send(server, 'all-c', [wireEvent('all-c', at('2026-03-16T10:00:00.000Z'))]);
    const first = await list('all-b', 'from=2026-03-16&to=2026-03-16&scope=all-sites&limit=2');
    expect(ids(first)).toEqual([a[0]!.id, b[0]!.id]);
    expect(first.body.meta.scope).toEqual({ workspace: 'acme', all_sites: true });
    const second = await list('all-b', `from=2026-03-16&to=2026-03-16&scope=all-sites&limit=2&cursor=${encodeURIComponent(first.body.meta.cursor.next)}`);
    expect(ids(second)).toEqual([a2[0]!.id]);
    expect(ids(await list('all-b', 'from=2026-03-16&to=2026-03-16'))).toEqual([b[0]!.id]);
  });
});
