// POST /workspaces/:slug/analysis/funnels-v2 over real HTTP: counting by person through identity bindings, the
// completion window at its edge (exactly at it and one second over), steps out of order, repeated steps, events at
// the same millisecond, cross-device persons, the all-sites scope, date modes, path prefixes, props, filters,
// internal traffic, breakdown and the median time between steps. Every answer is checked against the OpenAPI
// document by the test client.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { at, counts, funnelOk, funnelQuery, iphone, postEvents } from './_funnel-helpers.ts';

let server: TestServer;
const slug = 'fun';
const view = { type: 'pageview' };
const signup = { type: 'signup' };
const purchase = { type: 'purchase' };

beforeAll(async () => {
  server = await startTestServer({ clock: manualClock('2026-03-20T12:00:00.000Z') });
  await seedWorkspace(server, slug, { sites: ['f-window', 'f-order', 'f-repeat', 'f-cross', 'f-dates', 'f-match', 'f-filter'] });
  await seedWorkspace(server, 'fun-all', { sites: ['f-all-a', 'f-all-b'] });
  await postEvents(server, [
    // Window of one hour: exactly at it counts, one second over does not.
    { site: 'f-window', anon: 'at-limit', ts: at(0) },
    { site: 'f-window', anon: 'at-limit', ts: at(60), type: 'signup' },
    { site: 'f-window', anon: 'over', ts: at(0) },
    { site: 'f-window', anon: 'over', ts: at(60, 1000), type: 'signup' },
    // A later start inside the window rescues a person whose first start was too early.
    { site: 'f-window', anon: 'restart', ts: at(0) },
    { site: 'f-window', anon: 'restart', ts: at(100) },
    { site: 'f-window', anon: 'restart', ts: at(130), type: 'signup' },
    // The longest window, 90 days: a signup exactly 90 days after the pageview counts, one second later does not.
    { site: 'f-window', anon: 'ninety', ts: Date.parse('2025-12-01T08:00:00.000Z') },
    { site: 'f-window', anon: 'ninety', ts: Date.parse('2026-03-01T08:00:00.000Z'), type: 'signup' },
    { site: 'f-window', anon: 'ninety-over', ts: Date.parse('2025-12-01T09:00:00.000Z') },
    { site: 'f-window', anon: 'ninety-over', ts: Date.parse('2026-03-01T09:00:01.000Z'), type: 'signup' },
    // Steps out of order: signup before the pageview never converts; then purchase after.
    { site: 'f-order', anon: 'backwards', ts: at(0), type: 'signup' },
    { site: 'f-order', anon: 'backwards', ts: at(5) },
    { site: 'f-order', anon: 'backwards', ts: at(6), type: 'purchase' },
    { site: 'f-order', anon: 'forwards', ts: at(0) },
    { site: 'f-order', anon: 'forwards', ts: at(5), type: 'signup' },
    { site: 'f-order', anon: 'forwards', ts: at(6), type: 'purchase' },
    // Same millisecond: ingest order decides (pageview stored first, then signup).
    { site: 'f-order', anon: 'same-ms', ts: at(30) },
    { site: 'f-order', anon: 'same-ms', ts: at(30), type: 'signup' },
    { site: 'f-order', anon: 'same-ms-reversed', ts: at(40), type: 'signup' },
    { site: 'f-order', anon: 'same-ms-reversed', ts: at(40) },
    // Repeated steps: pageview, pageview, pageview needs three distinct pageviews.
    { site: 'f-repeat', anon: 'two-views', ts: at(0) },
    { site: 'f-repeat', anon: 'two-views', ts: at(1) },
    { site: 'f-repeat', anon: 'three-views', ts: at(0) },
    { site: 'f-repeat', anon: 'three-views', ts: at(1) },
    { site: 'f-repeat', anon: 'three-views', ts: at(3) },
    // Cross-device: the phone browses anonymously, then logs in as alice; the desktop (alice) signs up. One person.
    { site: 'f-cross', anon: 'phone', ts: at(0), agent: iphone },
    { site: 'f-cross', anon: 'phone', ts: at(2), type: 'login', user: 'alice', agent: iphone },
    { site: 'f-cross', anon: 'desktop', ts: at(10), type: 'signup', user: 'alice' },
    // bob: two devices never bound to one user stay two people.
    { site: 'f-cross', anon: 'bob-phone', ts: at(0), agent: iphone },
    { site: 'f-cross', anon: 'bob-desktop', ts: at(10), type: 'signup' },
    // All sites: one anon_id starts on site a and converts on site b.
    { site: 'f-all-a', anon: 'traveller', ts: at(0) },
    { site: 'f-all-b', anon: 'traveller', ts: at(5), type: 'signup' },
    { site: 'f-all-b', anon: 'stayer', ts: at(0) },
    // Date modes: range 2026-03-01..2026-03-10; the signup comes on 03-11 (inside a 2-day window).
    { site: 'f-dates', anon: 'late-finisher', ts: at(23 * 60) },
    { site: 'f-dates', anon: 'late-finisher', ts: at(25 * 60), type: 'signup' },
    { site: 'f-dates', anon: 'early', ts: Date.parse('2026-02-28T23:59:00.000Z') },
    { site: 'f-dates', anon: 'early', ts: Date.parse('2026-03-01T00:01:00.000Z'), type: 'signup' },
    // Path prefix and props.
    { site: 'f-match', anon: 'm1', ts: at(0), path: '/docs/intro' },
    { site: 'f-match', anon: 'm1', ts: at(1), type: 'purchase', props: { plan: 'pro', seats: 3 } },
    { site: 'f-match', anon: 'm2', ts: at(0), path: '/docsx' },
    { site: 'f-match', anon: 'm2', ts: at(1), type: 'purchase', props: { plan: 'free' } },
    { site: 'f-match', anon: 'm3', ts: at(0), path: '/pricing' },
    { site: 'f-match', anon: 'm3', ts: at(1), type: 'purchase', props: { plan: 'pro', seats: 3 } },
    // Filters (device of the first step), internal traffic and medians: 2 min, 4 min, 10 min to signup.
    { site: 'f-filter', anon: 'p1', ts: at(0), agent: iphone },
    { site: 'f-filter', anon: 'p1', ts: at(2), type: 'signup', agent: iphone },
    { site: 'f-filter', anon: 'd1', ts: at(0) },
    { site: 'f-filter', anon: 'd1', ts: at(4), type: 'signup' },
    { site: 'f-filter', anon: 'd2', ts: at(0) },
    { site: 'f-filter', anon: 'd2', ts: at(10), type: 'signup' },
    { site: 'f-filter', anon: 'd3', ts: at(0) },
    { site: 'f-filter', anon: 'staff', ts: at(0), internal: true },
    { site: 'f-filter', anon: 'staff', ts: at(1), type: 'signup', internal: true },
  ]);
});
afterAll(() => server.close());

const run = (query: Record<string, unknown>) => funnelOk(server, slug, funnelQuery(query as never));

describe('the completion window', () => {
  it('counts a last step exactly at the window and not one second over; a later start inside the window counts', async () => {
    const body = await run({ site: 'f-window', steps: [view, signup], window: { value: 1, unit: 'hours' } });
    // at-limit and restart convert; over does not.
    expect(counts(body)).toEqual([3, 2]);
    const wider = await run({ site: 'f-window', steps: [view, signup], window: { value: 61, unit: 'minutes' } });
    expect(counts(wider)).toEqual([3, 3]);
  });

  it('counts the longest window (90 days) exactly at its limit and not one second over', async () => {
    const body = await run({ site: 'f-window', steps: [view, signup], from: '2025-12-01', to: '2025-12-01', window: { value: 90, unit: 'days' } });
    expect(counts(body)).toEqual([2, 1]);
    expect(body.data.steps[1].median_seconds_from_previous).toBe(90 * 86_400);
  });
});

describe('order and repetition', () => {
  it('needs the steps in order: a signup before the pageview does not count, the purchase after it does not skip', async () => {
    const body = await run({ site: 'f-order', steps: [view, signup, purchase] });
    expect(counts(body)).toEqual([4, 2, 1]);
    expect(body.data.steps.map((step: any) => step.label)).toEqual(['pageview', 'signup', 'purchase']);
  });

  it('orders events at the same millisecond by ingest order', async () => {
    const body = await run({ site: 'f-order', steps: [view, signup], from: '2026-03-10', to: '2026-03-10', window: { value: 1, unit: 'minutes' } });
    // forwards takes 5 minutes, past the 1-minute window; same-ms converts within the same millisecond;
    // same-ms-reversed stored its signup first, so it does not.
    expect(counts(body)).toEqual([4, 1]);
  });

  it('uses one event for one step only: three pageview steps need three pageviews', async () => {
    const body = await run({ site: 'f-repeat', steps: [view, view, view] });
    expect(counts(body)).toEqual([2, 2, 1]);
    expect(body.data.steps[1].median_seconds_from_previous).toBe(60);
    expect(body.data.steps[2].median_seconds_from_previous).toBe(120);
  });
});

describe('people', () => {
  it('merges the devices of one user through the identity bindings (events before the login included)', async () => {
    const body = await run({ site: 'f-cross', steps: [view, signup] });
    // alice (phone + desktop) is one person who converted; bob's two devices are two people, one of them converted
    // without starting, so only bob-phone starts.
    expect(counts(body)).toEqual([2, 1]);
    expect(body.data.steps[1].median_seconds_from_previous).toBe(600);
  });

  it('scope all-sites follows a person across the sites of the workspace; one site sees only its part', async () => {
    const all = await funnelOk(server, 'fun-all', funnelQuery({ allSites: true, steps: [view, signup] }));
    expect(all.meta.scope).toEqual({ workspace: 'fun-all', all_sites: true });
    // traveller starts on a and converts on b; stayer only starts.
    expect(counts(all)).toEqual([2, 1]);
    expect(counts(await funnelOk(server, 'fun-all', funnelQuery({ site: 'f-all-a', steps: [view, signup] })))).toEqual([1, 0]);
    expect(counts(await funnelOk(server, 'fun-all', funnelQuery({ site: 'f-all-b', steps: [view, signup] })))).toEqual([1, 0]);
  });
});

describe('date modes', () => {
  it('first_step: only the first step must be in the range; all_steps: every step', async () => {
    const range = { from: '2026-03-01', to: '2026-03-10', window: { value: 2, unit: 'days' } };
    const first = await run({ site: 'f-dates', steps: [view, signup], ...range });
    // late-finisher converts after the range; early started before it and is not counted.
    expect(counts(first)).toEqual([1, 1]);
    const all = await run({ site: 'f-dates', steps: [view, signup], ...range, date_mode: 'all_steps' });
    expect(counts(all)).toEqual([1, 0]);
    expect(all.meta.filters).toMatchObject({ date_mode: 'all_steps', window: '2 days' });
  });
});

describe('matching steps', () => {
  it('matches a path prefix (path ending in *) and an exact path', async () => {
    expect(counts(await run({ site: 'f-match', steps: [{ type: 'pageview', path: '/docs*' }, purchase] }))).toEqual([2, 2]);
    expect(counts(await run({ site: 'f-match', steps: [{ type: 'pageview', path: '/docs/intro' }, purchase] }))).toEqual([1, 1]);
  });

  it('matches props by equality of every given property', async () => {
    const body = await run({ site: 'f-match', steps: [view, { type: 'purchase', props: { plan: 'pro', seats: 3 }, label: 'Pro purchase' }] });
    expect(counts(body)).toEqual([3, 2]);
    expect(body.data.steps[1].label).toBe('Pro purchase');
    expect(counts(await run({ site: 'f-match', steps: [view, { type: 'purchase', props: { plan: 'pro', seats: '3' } }] }))).toEqual([3, 0]);
  });
});

describe('filters, internal traffic, breakdown and measures', () => {
  it('counts conversion from start and from the previous step, and the median time', async () => {
    const body = await run({ site: 'f-filter', steps: [view, signup, purchase] });
    expect(body.data.steps).toEqual([
      { index: 1, label: 'pageview', count: 4, conversion_from_start: 1, conversion_from_previous: 1, median_seconds_from_previous: null },
      { index: 2, label: 'signup', count: 3, conversion_from_start: 0.75, conversion_from_previous: 0.75, median_seconds_from_previous: 240 },
      { index: 3, label: 'purchase', count: 0, conversion_from_start: 0, conversion_from_previous: 0, median_seconds_from_previous: null },
    ]);
    expect(body.meta.computed_from).toBe('event_log');
    expect(body.meta.completeness).toEqual({ complete: true });
  });

  it('filters on the first step event (device) and includes internal traffic only when asked', async () => {
    expect(counts(await run({ site: 'f-filter', steps: [view, signup], device: ['mobile'] }))).toEqual([1, 1]);
    expect(counts(await run({ site: 'f-filter', steps: [view, signup], device: ['desktop'] }))).toEqual([3, 2]);
    expect(counts(await run({ site: 'f-filter', steps: [view, signup], internal: 'include' }))).toEqual([5, 4]);
  });

  it('breaks the funnel down by the first step event’s value', async () => {
    const body = await run({ site: 'f-filter', steps: [view, signup], breakdown: 'device' });
    expect(body.data.breakdown).toEqual([
      { value: 'desktop', steps: [expect.objectContaining({ count: 3 }), expect.objectContaining({ count: 2, median_seconds_from_previous: 420 })] },
      { value: 'mobile', steps: [expect.objectContaining({ count: 1 }), expect.objectContaining({ count: 1, median_seconds_from_previous: 120 })] },
    ]);
    expect(body.meta.filters.breakdown).toBe('device');
  });

  it('answers zeros for an empty population', async () => {
    const body = await run({ site: 'f-filter', steps: [view, signup], from: '2026-01-01', to: '2026-01-31' });
    expect(counts(body)).toEqual([0, 0]);
    expect(body.data.steps[0].conversion_from_start).toBe(0);
  });
});
