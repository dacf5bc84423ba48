// GET /sites/:siteId/events/activity-v2 over real HTTP: one window [end − 60 min, end) in twelve dense 5-minute
// buckets per path, its edges, the default end (the injected clock), the top-paths limit, from/to (the window capped
// to end at the range's end and clipped to it) and refused parameters.
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventActivityAnswer } from '../../src/events/answers.ts';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { googlebot, send, wireEvent } from './_helpers.ts';

const clock = manualClock('2026-03-20T12:00:00.000Z');
const end = '2026-03-20T10:00:00.000Z';
const endMs = Date.parse(end);
const minutesBeforeEnd = (minutes: number, ms = 0) => new Date(endMs - minutes * 60_000 + ms).toISOString();
const page = (path: string) => `https://s.example${path}`;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ clock });
  await seedWorkspace(server, 'acme', { sites: ['live', 'night', 'now', 'ranged'] });
  await send(server, 'live', [
    // /a: the window's first instant (bucket 0), 32 minutes before end (bucket 5), its last millisecond (bucket 11).
    wireEvent('live', { ts: minutesBeforeEnd(60), url: page('/a') }),
    wireEvent('live', { ts: minutesBeforeEnd(32), url: page('/a') }),
    wireEvent('live', { ts: minutesBeforeEnd(0, -1), url: page('/a') }),
    // Every event type with a path counts; events without one do not.
    wireEvent('live', { ts: minutesBeforeEnd(32), url: page('/a?ref=x'), type: 'signup' }),
    wireEvent('live', { ts: minutesBeforeEnd(30), url: null, type: 'click' }),
    // /b and /c tie on total: path ascending breaks the tie.
    wireEvent('live', { ts: minutesBeforeEnd(10), url: page('/c') }),
    wireEvent('live', { ts: minutesBeforeEnd(10), url: page('/b') }),
    // Just outside: end itself and one millisecond before the start.
    wireEvent('live', { ts: minutesBeforeEnd(0), url: page('/a') }),
    wireEvent('live', { ts: minutesBeforeEnd(60, -1), url: page('/a') }),
    // Bots never, internal traffic only with internal=include.
    wireEvent('live', { ts: minutesBeforeEnd(20), url: page('/bot'), context: { user_agent: googlebot } }),
    wireEvent('live', { ts: minutesBeforeEnd(20), url: page('/staff'), internal: true }),
  ]);
});
afterAll(() => server.close());

async function activity(site: string, query: string) {
  const response = await server.request('GET', `/sites/${site}/events/activity-v2?${query}`);
  if (response.status === 200) expect(v.safeParse(EventActivityAnswer, response.body).issues).toBeUndefined();
  return response;
}

const zeros = () => new Array<number>(12).fill(0);
const buckets = (counts: Record<number, number>) => Object.assign(zeros(), counts);

describe('activity-v2', () => {
  it('answers dense buckets for the window [end − 60 min, end), top paths first', async () => {
    const response = await activity('live', `end=${end}`);
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({
      window: { start: '2026-03-20T09:00:00.000Z', end },
      bucket_minutes: 5,
      paths: [
        { path: '/a', total: 4, buckets: buckets({ 0: 1, 5: 2, 11: 1 }) },
        { path: '/b', total: 1, buckets: buckets({ 10: 1 }) },
        { path: '/c', total: 1, buckets: buckets({ 10: 1 }) },
      ],
    });
    expect(response.body.meta).toMatchObject({ range: { from: '2026-03-20', to: '2026-03-20' }, truncated: false, limit: 10, computed_from: 'event_log' });
  });

  it('accepts end with any offset and takes the same instant', async () => {
    const shifted = await activity('live', `end=${encodeURIComponent('2026-03-20T12:00:00+02:00')}`);
    expect(shifted.body.data.window).toEqual({ start: '2026-03-20T09:00:00.000Z', end });
  });

  it('adds internal traffic with internal=include and applies filters', async () => {
    const withInternal = await activity('live', `end=${end}&internal=include`);
    expect(withInternal.body.data.paths.map((row: { path: string }) => row.path)).toEqual(['/a', '/b', '/c', '/staff']);
    const onlyB = await activity('live', `end=${end}&path=/b`);
    expect(onlyB.body.data.paths).toEqual([{ path: '/b', total: 1, buckets: buckets({ 10: 1 }) }]);
    expect((await activity('live', `end=${end}&device=mobile`)).body.data.paths).toEqual([]);
  });

  it('lists the top `limit` paths (1 to 200, default 10) and says when more exist', async () => {
    const one = await activity('live', `end=${end}&limit=1`);
    expect(one.body.data.paths.map((row: { path: string }) => row.path)).toEqual(['/a']);
    expect(one.body.meta).toMatchObject({ truncated: true, limit: 1 });
    expect((await activity('live', `end=${end}&limit=200`)).body.meta).toMatchObject({ truncated: false, limit: 200 });
    for (const limit of ['0', '201', 'x']) expect((await activity('live', `end=${end}&limit=${limit}`)).status, limit).toBe(400);
  });

  it('with no end ends the window now (the injected clock), zeros everywhere when nothing happened', async () => {
    await send(server, 'now', [wireEvent('now', { ts: '2026-03-20T11:59:59.999Z', url: page('/x') }), wireEvent('now', { ts: '2026-03-20T12:00:00.000Z', url: page('/x') })]);
    const response = await activity('now', '');
    expect(response.body.data.window).toEqual({ start: '2026-03-20T11:00:00.000Z', end: '2026-03-20T12:00:00.000Z' });
    expect(response.body.data.paths).toEqual([{ path: '/x', total: 1, buckets: buckets({ 11: 1 }) }]);
    expect(response.body.meta.completeness.complete).toBe(false);
    const quiet = await activity('now', 'end=2026-03-19T12:00:00Z');
    expect(quiet.body.data.paths).toEqual([]);
  });

  it('reports the window\'s UTC days as meta.range, two when it spans midnight', async () => {
    await send(server, 'night', [wireEvent('night', { ts: '2026-03-18T23:50:00.000Z', url: page('/late') }), wireEvent('night', { ts: '2026-03-19T00:10:00.000Z', url: page('/late') })]);
    const response = await activity('night', 'end=2026-03-19T00:30:00Z');
    expect(response.body.meta.range).toEqual({ from: '2026-03-18', to: '2026-03-19' });
    expect(response.body.meta.completeness).toEqual({ complete: true });
    expect(response.body.data.paths).toEqual([{ path: '/late', total: 2, buckets: buckets({ 4: 1, 8: 1 }) }]);
    // A window ending at midnight lies wholly in the day before.
    expect((await activity('night', 'end=2026-03-19T00:00:00Z')).body.meta.range).toEqual({ from: '2026-03-18', to: '2026-03-18' });
  });

  it.each([
    ['a malformed end', 'end=yesterday', 'invalid_param', '/end'],
    ['an end without an offset', 'end=2026-03-20T10:00:00', 'invalid_param', '/end'],
    ['an impossible date', 'end=2026-02-30T10:00:00Z', 'invalid_param', '/end'],
    ['end given twice', `end=${end}&end=${end}`, 'invalid_param', '/end'],
    ['from without to', `end=${end}&from=2026-03-20`, 'invalid_date_param', '/to'],
    ['to without from', 'to=2026-03-20', 'invalid_date_param', '/from'],
    ['a malformed from', 'from=2026-3-20&to=2026-03-20', 'invalid_date_param', '/from'],
    ['from after to', 'from=2026-03-20&to=2026-03-19', 'invalid_date_range', '/from'],
    ['a range of 368 days', 'from=2025-03-18&to=2026-03-20', 'range_too_large', '/to'],
    ['21 filter values', `end=${end}&city=${Array.from({ length: 21 }, (_, index) => `c${index}`).join(',')}`, 'too_many_values', '/city'],
    ['bots=include', `end=${end}&bots=include`, 'unsupported_bots', '/bots'],
    ['timezone=CET', `end=${end}&timezone=CET`, 'unsupported_timezone', '/timezone'],
  ])('refuses %s with a structured 400', async (_name, query, code, pointer) => {
    const response = await activity('live', query);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: { code, message: expect.any(String), details: [{ path: pointer, message: expect.any(String) }] } });
  });

  it('accepts 20 filter values', async () => {
    expect((await activity('live', `end=${end}&city=${Array.from({ length: 20 }, (_, index) => `c${index}`).join(',')}`)).status).toBe(200);
  });
});

describe('activity-v2 with from/to', () => {
  // Around midnight between 2026-03-19 and 2026-03-20 (the clock says 2026-03-20T12:00Z).
  beforeAll(async () => {
    await send(server, 'ranged', [
      wireEvent('ranged', { ts: '2026-03-19T23:10:00.000Z', url: page('/late') }),
      wireEvent('ranged', { ts: '2026-03-19T23:59:59.999Z', url: page('/late') }),
      wireEvent('ranged', { ts: '2026-03-20T00:00:00.000Z', url: page('/late') }),
      wireEvent('ranged', { ts: '2026-03-20T00:10:00.000Z', url: page('/early') }),
    ]);
  });

  it('ends the window at the end of to (the next day 00:00 UTC) when that is earlier than now, and reports the range given', async () => {
    const response = await activity('ranged', 'from=2026-03-19&to=2026-03-19');
    expect(response.status).toBe(200);
    expect(response.body.data.window).toEqual({ start: '2026-03-19T23:00:00.000Z', end: '2026-03-20T00:00:00.000Z' });
    // 2026-03-20T00:00:00.000Z is the first instant after the range: not counted.
    expect(response.body.data.paths).toEqual([{ path: '/late', total: 2, buckets: buckets({ 2: 1, 11: 1 }) }]);
    expect(response.body.meta).toMatchObject({ range: { from: '2026-03-19', to: '2026-03-19' }, completeness: { complete: true } });
  });

  it('ends the window now when the range ends later', async () => {
    const response = await activity('ranged', 'from=2026-03-20&to=2026-03-21');
    expect(response.body.data.window).toEqual({ start: '2026-03-20T11:00:00.000Z', end: '2026-03-20T12:00:00.000Z' });
    expect(response.body.meta).toMatchObject({ range: { from: '2026-03-20', to: '2026-03-21' }, warnings: ['The range ends after the current UTC day.'] });
  });

  it('caps an explicit end later than the end of to to the end of to', async () => {
    const capped = await activity('ranged', 'from=2026-03-19&to=2026-03-19&end=2026-03-20T10:00:00Z');
    expect(capped.body.data).toEqual((await activity('ranged', 'from=2026-03-19&to=2026-03-19')).body.data);
    // One millisecond before the end of to is not capped.
    const inside = await activity('ranged', 'from=2026-03-19&to=2026-03-19&end=2026-03-19T23:59:59.999Z');
    expect(inside.body.data.window).toEqual({ start: '2026-03-19T22:59:59.999Z', end: '2026-03-19T23:59:59.999Z' });
    expect(inside.body.data.paths).toEqual([{ path: '/late', total: 1, buckets: buckets({ 2: 1 }) }]);
  });

  it('takes an explicit end inside the range as is', async () => {
    const response = await activity('ranged', 'from=2026-03-19&to=2026-03-20&end=2026-03-20T00:30:00Z');
    expect(response.body.data.window).toEqual({ start: '2026-03-19T23:30:00.000Z', end: '2026-03-20T00:30:00.000Z' });
    expect(response.body.data.paths).toEqual([
      { path: '/late', total: 2, buckets: buckets({ 5: 1, 6: 1 }) },
      { path: '/early', total: 1, buckets: buckets({ 8: 1 }) },
    ]);
    expect(response.body.meta.range).toEqual({ from: '2026-03-19', to: '2026-03-20' });
  });

  it('counts nothing in the buckets before from (all twelve are still there)', async () => {
    const response = await activity('ranged', 'from=2026-03-20&to=2026-03-20&end=2026-03-20T00:30:00Z');
    expect(response.body.data.window).toEqual({ start: '2026-03-19T23:30:00.000Z', end: '2026-03-20T00:30:00.000Z' });
    // 2026-03-19T23:59:59.999Z lies in the window (bucket 5) but before the range.
    expect(response.body.data.paths).toEqual([
      { path: '/early', total: 1, buckets: buckets({ 8: 1 }) },
      { path: '/late', total: 1, buckets: buckets({ 6: 1 }) },
    ]);
    // A window wholly before the range counts nothing.
    const before = await activity('ranged', 'from=2026-03-21&to=2026-03-21&end=2026-03-20T00:30:00Z');
    expect(before.body.data).toMatchObject({ window: { start: '2026-03-19T23:30:00.000Z', end: '2026-03-20T00:30:00.000Z' }, paths: [] });
  });

  it('accepts a range of 367 days (368 is refused above) and applies the filters with it', async () => {
    const response = await activity('ranged', 'from=2025-03-19&to=2026-03-20&end=2026-03-20T00:30:00Z&path=/early');
    expect(response.status).toBe(200);
    expect(response.body.meta.range).toEqual({ from: '2025-03-19', to: '2026-03-20' });
    expect(response.body.data.paths).toEqual([{ path: '/early', total: 1, buckets: buckets({ 8: 1 }) }]);
  });
});
