// Correlation and explanation over real HTTP, and the execution_id that pins them: odds ratios computed by hand,
// the minimum of people per factor, strongest first; converted and dropped counts, time to convert p50/p90 and what
// the dropped did next. Events (and identity bindings) stored after an execution are left out of its panels, a
// changed query is 409 execution_mismatch, a forged token 400, and a token of another workspace 409.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { visitorFirstInSpanSql, visitorSpanTypesSql } from '../../src/projector/queries/visitor-events.ts';
import { at, chrome, type EventSpec, expectRefusal, funnelOk, funnelPath, funnelQuery, iphone, postEvents } from './_funnel-helpers.ts';

const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
let server: TestServer;
const query = funnelQuery({ site: 'p-site', steps: [{ type: 'pageview' }, { type: 'signup' }] });
let executionId: string;
let firstCorrelation: any;
let firstExplanation: any;

function population(): EventSpec[] {
  const events: EventSpec[] = [];
  for (let index = 0; index < 12; index++) {
    // Chrome on Windows: adds to cart, signs up 3 minutes after the pageview.
    const start = at(index * 60);
    events.push({ site: 'p-site', anon: `chrome-${index}`, ts: start, agent: chrome, path: '/?utm_source=news&utm_campaign=spring' });
    events.push({ site: 'p-site', anon: `chrome-${index}`, ts: start + 60_000, type: 'add_to_cart', agent: chrome });
    events.push({ site: 'p-site', anon: `chrome-${index}`, ts: start + 180_000, type: 'signup', agent: chrome });
    // iPhone: drops; three of them add to cart before scrolling.
    events.push({ site: 'p-site', anon: `iphone-${index}`, ts: start, agent: iphone });
    if (index >= 9) events.push({ site: 'p-site', anon: `iphone-${index}`, ts: start + 60_000, type: 'add_to_cart', agent: iphone });
    events.push({ site: 'p-site', anon: `iphone-${index}`, ts: start + 120_000, type: 'scroll', path: '/feed', agent: iphone });
  }
  // Nine Firefox people sign up after 10 minutes: fewer than 10 people, so their browser and os are no factor.
  for (let index = 0; index < 9; index++) {
    events.push({ site: 'p-site', anon: `firefox-${index}`, ts: at(index * 60 + 30), agent: firefox });
    events.push({ site: 'p-site', anon: `firefox-${index}`, ts: at(index * 60 + 40), type: 'signup', agent: firefox });
  }
  return events;
}

const panel = (name: 'correlation' | 'explanation', body: Record<string, unknown>, slug = 'pan') =>
  server.request('POST', funnelPath(slug, name), { body });
const transition = { from_step: 1, to_step: 2 };

beforeAll(async () => {
  server = await startTestServer({ clock: manualClock('2026-03-20T12:00:00.000Z') });
  await seedWorkspace(server, 'pan', { sites: ['p-site'] });
  await seedWorkspace(server, 'pan-other', { sites: ['p-other'] });
  await seedWorkspace(server, 'pan-pin', { sites: ['p-pin'] });
  await seedWorkspace(server, 'pan-late', { sites: ['p-late'] });
  await postEvents(server, population());
  const run = await funnelOk(server, 'pan', query);
  expect(run.data.steps.map((step: any) => step.count)).toEqual([33, 21]);
  executionId = run.data.execution_id;
  firstCorrelation = (await panel('correlation', { query, transition, execution_id: executionId })).body;
  firstExplanation = (await panel('explanation', { query, transition, execution_id: executionId })).body;
});
afterAll(() => server.close());

describe('correlation', () => {
  it('gives the odds ratio and success rate of each factor, computed by hand for add_to_cart', () => {
    const factor = firstCorrelation.data.factors.find((item: any) => item.dimension === 'event_type' && item.value === 'add_to_cart');
    // converted with 12, dropped with 3, converted without 21 - 12 = 9, dropped without 12 - 3 = 9: (12 × 9) / (3 × 9).
    expect(factor).toEqual({ dimension: 'event_type', value: 'add_to_cart', converted: 12, dropped: 3, odds_ratio: 4, success_rate: 0.8 });
  });

  it('adds 0.5 to every cell when one is zero (Chrome: nobody dropped)', () => {
    const factor = firstCorrelation.data.factors.find((item: any) => item.dimension === 'browser' && item.value === 'Chrome');
    // (12.5 × 12.5) / (0.5 × 9.5)
    expect(factor).toMatchObject({ converted: 12, dropped: 0, success_rate: 1 });
    expect(factor.odds_ratio).toBeCloseTo((12.5 * 12.5) / (0.5 * 9.5), 3);
    const mobile = firstCorrelation.data.factors.find((item: any) => item.dimension === 'device' && item.value === 'mobile');
    expect(mobile).toMatchObject({ converted: 0, dropped: 12, success_rate: 0 });
    expect(mobile.odds_ratio).toBeLessThan(1);
  });

  it('takes source and campaign from the visit holding the first step (the projector’s visits)', () => {
    const factors = firstCorrelation.data.factors as any[];
    const find = (dimension: string, value: string) => factors.find((item) => item.dimension === dimension && item.value === value);
    expect(find('campaign', 'spring')).toMatchObject({ converted: 12, dropped: 0, success_rate: 1 });
    expect(find('source', 'news')).toMatchObject({ converted: 12, dropped: 0 });
    // Firefox (9, converted) and iPhone (12, dropped) people came direct: 21 people, under-represented among converters.
    const direct = find('source', 'direct');
    expect(direct).toMatchObject({ converted: 9, dropped: 12 });
    // (9 × 0) has a zero cell: (9.5 × 0.5) / (12.5 × 12.5)
    expect(direct.odds_ratio).toBeCloseTo((9.5 * 0.5) / (12.5 * 12.5), 5);
  });

  it('leaves out factors of fewer than 10 people and values everybody shares; strongest first', () => {
    const factors = firstCorrelation.data.factors as any[];
    expect(factors.some((item) => item.value === 'Firefox' || item.value === 'Linux')).toBe(false);
    // Every visit entered on /: a value everybody shares.
    expect(factors.some((item) => item.dimension === 'entry_path')).toBe(false);
    for (const item of factors) expect(item.converted + item.dropped).toBeGreaterThanOrEqual(10);
    const strengths = factors.map((item) => Math.abs(Math.log(item.odds_ratio)));
    for (let index = 1; index < strengths.length; index++) expect(strengths[index]).toBeLessThanOrEqual(strengths[index - 1]! + 1e-4);
    expect(firstCorrelation.meta.scope).toEqual({ site_id: 'p-site' });
  });
});

describe('correlation and late events', () => {
  it('keeps the visit values of the execution when a late event past it becomes the visit’s entry', async () => {
    const lateQuery = funnelQuery({ site: 'p-late', steps: [{ type: 'pageview' }, { type: 'signup' }] });
    const people: EventSpec[] = [];
    for (let index = 0; index < 10; index++) {
      people.push({ site: 'p-late', anon: `lands-${index}`, ts: at(index * 60), path: '/landing' });
      people.push({ site: 'p-late', anon: `lands-${index}`, ts: at(index * 60 + 1), type: 'signup' });
      people.push({ site: 'p-late', anon: `home-${index}`, ts: at(index * 60) });
    }
    await postEvents(server, people);
    const run = await funnelOk(server, 'pan-late', lateQuery);
    const body = { query: lateQuery, transition, execution_id: run.data.execution_id };
    const before = (await panel('correlation', body, 'pan-late')).body;
    const entry = (value: string, answer: any) => answer.data.factors.find((item: any) => item.dimension === 'entry_path' && item.value === value);
    expect(entry('/landing', before)).toMatchObject({ converted: 10, dropped: 0 });
    // Late pageviews five minutes earlier, stored after the execution: the projector makes them the visits' entries.
    await postEvents(server, Array.from({ length: 10 }, (_, index) => ({ site: 'p-late', anon: `lands-${index}`, ts: at(index * 60 - 5), path: '/early' })));
    await server.projected();
    const after = (await panel('correlation', body, 'pan-late')).body;
    expect(entry('/early', after)).toBeUndefined();
    expect(after).toEqual(before);
  });
});

describe('the attempt’s other events (read person by person through the visitor index)', () => {
  const bot = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
  const edgeQuery = funnelQuery({ site: 'p-edge', steps: [{ type: 'pageview' }, { type: 'signup' }], from: '2026-03-10', to: '2026-03-10', window: { value: 30, unit: 'minutes' } });
  const windowMs = 30 * 60_000;
  let correlation: any;
  let explanation: any;

  beforeAll(async () => {
    await seedWorkspace(server, 'pan-edge', { sites: ['p-edge'] });
    const events: EventSpec[] = [];
    for (let index = 0; index < 10; index++) {
      const start = at(index * 60);
      // A user on two devices: the phone (bound the day before, outside the range) compares plans during the
      // attempt and does none of the steps; the laptop converts. What the phone does after the signup is no factor.
      events.push({ site: 'p-edge', anon: `phone-${index}`, ts: at(-24 * 60), user: `user-${index}`, type: 'login' });
      events.push({ site: 'p-edge', anon: `laptop-${index}`, ts: start, user: `user-${index}` });
      events.push({ site: 'p-edge', anon: `phone-${index}`, ts: start + 60_000, type: 'compare' });
      events.push({ site: 'p-edge', anon: `laptop-${index}`, ts: start + 120_000, type: 'signup' });
      events.push({ site: 'p-edge', anon: `phone-${index}`, ts: start + 180_000, type: 'after_signup' });
      // A dropper: an event at the pageview's millisecond stored before it (not after it in (ts, seq) order) and
      // one stored after it (the next event); the window's last millisecond counts, the next one does not; bot and
      // internal events are not read.
      const dropper = `dropper-${index}`;
      events.push({ site: 'p-edge', anon: dropper, ts: start, type: 'before_tie' });
      events.push({ site: 'p-edge', anon: dropper, ts: start });
      events.push({ site: 'p-edge', anon: dropper, ts: start, type: 'after_tie', path: '/tie' });
      events.push({ site: 'p-edge', anon: dropper, ts: start + 1_000, type: 'crawl', agent: bot });
      events.push({ site: 'p-edge', anon: dropper, ts: start + 2_000, type: 'internal_note', internal: true });
      events.push({ site: 'p-edge', anon: dropper, ts: start + windowMs, type: 'window_end' });
      events.push({ site: 'p-edge', anon: dropper, ts: start + windowMs + 1, type: 'past_window' });
    }
    await postEvents(server, events);
    const run = await funnelOk(server, 'pan-edge', edgeQuery);
    expect(run.data.steps.map((step: any) => step.count)).toEqual([20, 10]);
    const body = { query: edgeQuery, transition, execution_id: run.data.execution_id };
    correlation = (await panel('correlation', body, 'pan-edge')).body;
    explanation = (await panel('explanation', body, 'pan-edge')).body;
  });

  it('counts the event types of every device of a person, strictly inside the attempt', () => {
    const types = (correlation.data.factors as any[]).filter((item) => item.dimension === 'event_type');
    expect(types.map(({ value, converted, dropped }) => ({ value, converted, dropped })).sort((a, b) => a.value.localeCompare(b.value))).toEqual([
      { value: 'after_tie', converted: 0, dropped: 10 },
      { value: 'compare', converted: 10, dropped: 0 },
      { value: 'window_end', converted: 0, dropped: 10 },
    ]);
  });

  it('takes the next event of a dropper in (ts, seq) order', () => {
    expect(explanation.data).toMatchObject({ converted: 10, dropped: 10, next_events_of_dropped: [{ type: 'after_tie', path: '/tie', count: 10 }] });
  });
});

describe('explanation', () => {
  it('counts converted and dropped, the time to convert and what the dropped did next', () => {
    expect(firstExplanation.data).toEqual({
      converted: 21,
      dropped: 12,
      // Twelve conversions in 180 s and nine in 600 s: the 11th of 21 is 180 s, the 19th 600 s.
      time_to_convert: { p50: 180, p90: 600 },
      next_events_of_dropped: [
        { type: 'scroll', path: '/feed', count: 9 },
        { type: 'add_to_cart', path: '/', count: 3 },
      ],
    });
  });
});

describe('execution_id', () => {
  it('pins the population: events and identity bindings stored afterwards are left out of its panels', async () => {
    await postEvents(server, [
      // A new person who converts, and a login that makes one person of a converter and a dropper.
      { site: 'p-site', anon: 'newcomer', ts: at(900), agent: chrome },
      { site: 'p-site', anon: 'newcomer', ts: at(901), type: 'signup', agent: chrome },
      { site: 'p-site', anon: 'chrome-0', ts: at(1), type: 'login', user: 'zed', agent: chrome },
      { site: 'p-site', anon: 'iphone-0', ts: at(1), type: 'login', user: 'zed', agent: iphone },
    ]);
    await server.projected();
    const correlation = await panel('correlation', { query, transition, execution_id: executionId });
    const explanation = await panel('explanation', { query, transition, execution_id: executionId });
    expect(correlation.body).toEqual(firstCorrelation);
    expect(explanation.body).toEqual(firstExplanation);
    // A new run sees them: 33 + 1 - 1 people start, 21 + 1 convert (zed converted on the Chrome device).
    const rerun = await funnelOk(server, 'pan', query);
    expect(rerun.data.steps.map((step: any) => step.count)).toEqual([33, 22]);
    expect(rerun.data.execution_id).not.toBe(executionId);
    const newer = await panel('explanation', { query, transition, execution_id: rerun.data.execution_id });
    expect(newer.body.data).toMatchObject({ converted: 22, dropped: 11 });
  });

  it('keeps a binding made before the execution when the same login comes again after it', async () => {
    const pinQuery = funnelQuery({ site: 'p-pin', steps: [{ type: 'pageview' }, { type: 'signup' }] });
    await postEvents(server, [
      { site: 'p-pin', anon: 'q-phone', ts: at(0), agent: iphone },
      { site: 'p-pin', anon: 'q-phone', ts: at(1), type: 'login', user: 'q', agent: iphone },
      { site: 'p-pin', anon: 'q-desktop', ts: at(5), type: 'signup', user: 'q' },
    ]);
    const pinned = await funnelOk(server, 'pan-pin', pinQuery);
    expect(pinned.data.steps.map((step: any) => step.count)).toEqual([1, 1]);
    // The phone logs in again after the execution: the projector sees the binding again, past the watermark.
    await postEvents(server, [{ site: 'p-pin', anon: 'q-phone', ts: at(3), type: 'login', user: 'q', agent: iphone }]);
    await server.projected();
    const explanation = await panel('explanation', { query: pinQuery, transition, execution_id: pinned.data.execution_id }, 'pan-pin');
    expect(explanation.body.data).toMatchObject({ converted: 1, dropped: 0 });
  });

  it('answers 409 execution_mismatch when the query differs (a step, the window, a filter)', async () => {
    const changes = [
      { steps: [{ type: 'pageview' }, { type: 'purchase' }] },
      { window: { value: 2, unit: 'days' } },
      { device: ['mobile'] },
      { date_mode: 'all_steps' },
      { to: '2026-03-16' },
    ];
    for (const change of changes) {
      for (const name of ['correlation', 'explanation'] as const) {
        expectRefusal(await panel(name, { query: { ...query, ...change }, transition, execution_id: executionId }), 409, 'execution_mismatch', '/query');
      }
    }
  });

  it('ignores step labels and the order of filter values, which do not change the population', async () => {
    const relabelled = { ...query, steps: [{ type: 'pageview', label: 'Visited' }, { type: 'signup', label: 'Signed up' }] };
    expect((await panel('explanation', { query: relabelled, transition, execution_id: executionId })).status).toBe(200);
    const listed = await funnelOk(server, 'pan', { ...query, device: ['mobile', 'desktop'] });
    const reordered = await panel('explanation', { query: { ...query, device: ['desktop', 'mobile'] }, transition, execution_id: listed.data.execution_id });
    expect(reordered.status, reordered.text).toBe(200);
  });

  it('refuses a forged or altered execution_id with 400 invalid_payload', async () => {
    const [body, signature] = executionId.split('.') as [string, string];
    // The first character: the last one's low bits are padding, so changing it could leave the signature's bytes alone.
    const flipped = (signature.startsWith('A') ? 'B' : 'A') + signature.slice(1);
    const lowered = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), s: 1 })).toString('base64url');
    for (const forged of ['abc', `${body}.${flipped}`, `${lowered}.${signature}`, `${body}.${signature}.x`]) {
      expectRefusal(await panel('correlation', { query, transition, execution_id: forged }), 400, 'invalid_payload', '/execution_id');
    }
  });

  it('answers 409 for an execution of another workspace with the same query', async () => {
    const allSites = funnelQuery({ allSites: true, steps: [{ type: 'pageview' }, { type: 'signup' }] });
    const other = await funnelOk(server, 'pan-other', allSites);
    expectRefusal(await panel('explanation', { query: allSites, transition, execution_id: other.data.execution_id }), 409, 'execution_mismatch', '/query');
  });

  it('answers 409 when the workspace’s sites changed since an all-sites execution (a deleted site takes its events)', async () => {
    await seedWorkspace(server, 'pan-sites', { sites: ['p-s1'] });
    const allSites = funnelQuery({ allSites: true, steps: [{ type: 'pageview' }, { type: 'signup' }] });
    const run = await funnelOk(server, 'pan-sites', allSites);
    const body = { query: allSites, transition, execution_id: run.data.execution_id };
    expect((await panel('explanation', body, 'pan-sites')).status).toBe(200);
    const added = await server.request('POST', '/workspaces/pan-sites/sites', { body: { id: 'p-s2', name: 'Second' } });
    expect(added.status, added.text).toBe(201);
    expectRefusal(await panel('explanation', body, 'pan-sites'), 409, 'execution_mismatch', '/query/scope');
    expectRefusal(await panel('correlation', body, 'pan-sites'), 409, 'execution_mismatch', '/query/scope');
    expect((await server.request('DELETE', '/workspaces/pan-sites/sites/p-s2')).status).toBe(204);
    // The same sites again: the execution holds.
    expect((await panel('explanation', body, 'pan-sites')).status).toBe(200);
  });

  it('refuses a transition outside the steps or backwards', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ from_step: 1, to_step: 3 }, '/transition/to_step'],
      [{ from_step: 2, to_step: 1 }, '/transition/to_step'],
      [{ from_step: 2, to_step: 2 }, '/transition/to_step'],
      [{ from_step: 0, to_step: 2 }, '/transition/from_step'],
      [{ from_step: 3, to_step: 4 }, '/transition/from_step'],
    ];
    for (const [bad, path] of cases) {
      expectRefusal(await panel('explanation', { query, transition: bad, execution_id: executionId }), 400, 'invalid_payload', path);
    }
  });

  it('points body refusals of the nested query at /query', async () => {
    expectRefusal(await panel('correlation', { query: { ...query, steps: [{ type: 'pageview' }] }, transition, execution_id: executionId }), 400, 'invalid_payload', '/query/steps');
    expectRefusal(await panel('correlation', { query: { ...query, from: '2026-13-01' }, transition, execution_id: executionId }), 400, 'invalid_date_param', '/query/from');
  });
});

describe('query plan of the person-by-person reads', () => {
  it.each(['without', 'with'])('searches the visitor index and the log’s tail, never scans, %s ANALYZE statistics', (statistics) => {
    if (statistics === 'with') server.db.exec('ANALYZE');
    const params = { site_id: 'p-edge', anon_id: 'dropper-1', after_ts: at(0), after_seq: 1, until_ts: at(90), until_seq: Number.MAX_SAFE_INTEGER, with_internal: 0, max_seq: 1e9 };
    for (const sql of [visitorSpanTypesSql, visitorFirstInSpanSql]) {
      const details = (server.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { detail: string }[]).map((row) => row.detail);
      // The visitor's index rows in the span, each event by seq; the log's tail past the projector's position.
      // The visitor's index rows in the span (in the index's order: the first one is the next event, no sort), each
      // event by seq; the log's tail past the projector's position (short: it is sorted). Only the one or two rows
      // the halves give are sorted again to merge them.
      const head = [
        'SEARCH ve USING PRIMARY KEY (vid=? AND ts>? AND ts<?)',
        'SCALAR SUBQUERY 1',
        'SEARCH report_visitors USING PRIMARY KEY (site_id=? AND anon_id=?)',
        'SEARCH e USING INTEGER PRIMARY KEY (rowid=?)',
      ];
      const tail = ['SEARCH e USING INDEX events_by_site (site_id=? AND rowid>? AND rowid<?)', 'SCALAR SUBQUERY 4', 'SEARCH projector_state USING INTEGER PRIMARY KEY (rowid=?)'];
      expect(details).toEqual(
        sql === visitorSpanTypesSql
          ? ['CO-ROUTINE (subquery-6)', 'COMPOUND QUERY', 'LEFT-MOST SUBQUERY', ...head, 'UNION ALL', ...tail, 'SCAN (subquery-6)', 'USE TEMP B-TREE FOR DISTINCT']
          : [
              'MERGE (UNION ALL)',
              'LEFT',
              'CO-ROUTINE (subquery-2)',
              ...head,
              'SCAN (subquery-2)',
              'USE TEMP B-TREE FOR ORDER BY',
              'RIGHT',
              'CO-ROUTINE (subquery-5)',
              ...tail,
              'USE TEMP B-TREE FOR ORDER BY',
              'SCAN (subquery-5)',
              'USE TEMP B-TREE FOR ORDER BY',
            ],
      );
    }
  });
});
