// The families moved to ClickHouse answer what the SQLite implementation answers, figure for figure, over a generated
// stream richer than the contract's fixture: two sites of one workspace, visitors on both, repeated and out-of-order
// pageviews, visits split by 30-minute gaps, internal traffic, a crawler, several sources and devices, engagement
// events whose props are valid, out of range, strings, booleans or missing, signups and purchases with props and
// revenue, and a GDPR deletion pending in ClickHouse (deleted in SQLite, only left out by the reads there). Journeys,
// page flow, page engagement, goals and attribution are asked with every anchor and step count and under each kind of filter, and
// a later ranking page pinned to its first page's position; only the freshness (positions, times) may differ.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClickHouse } from '../../src/clickhouse/client.ts';
import { pendingDeletionsOf, recordSubjectDeletion } from '../../src/clickhouse/deletions.ts';
import { applyClickHouseSchema } from '../../src/clickhouse/schema.ts';
import { createShipper } from '../../src/clickhouse/shipper.ts';
import { createClickHouseReadModel } from '../../src/read-model/clickhouse/clickhouse-read-model.ts';
import type { ReadModel } from '../../src/read-model/read-model.ts';
import type { ReadScope, Selection } from '../../src/read-model/questions.ts';
import type { ReportFilters } from '../../src/vocabulary/report-filters.ts';
import { dayOf } from '../../src/vocabulary/periods.ts';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { startClickHouse, type ClickHouseTestServer } from './_server.ts';

const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const iphone = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const googlebot = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const minute = 60_000;
const base = Date.parse('2026-03-02T06:00:00.000Z');
const paths = ['/', '/pricing', '/docs', '/blog', '/signup'];
const referrers = ['https://www.google.com/search?q=x', 'https://news.ycombinator.com/', undefined];
const engagementProps = [
  { scroll_depth: 40, engaged_ms: 1200 },
  { scroll_depth: 100, engaged_ms: 0 },
  { scroll_depth: 150, engaged_ms: 300 },
  { scroll_depth: '60', engaged_ms: 500 },
  { scroll_depth: true, engaged_ms: 700 },
  { scroll_depth: 75, engaged_ms: 2.5 },
  {},
  { scroll_depth: 10, engaged_ms: 9000 },
];

/** A deterministic pseudo-random sequence (the same stream on every run). */
function generator(seed: number) {
  let state = seed;
  return (below: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    // The high bits: the low ones of this generator cycle with a short period.
    return Math.floor(state / 65_536) % below;
  };
}

function stream(): Record<string, Record<string, unknown>[]> {
  const next = generator(27);
  const bySite: Record<string, Record<string, unknown>[]> = { 'fam-a': [], 'fam-b': [] };
  let counter = 0;
  for (let visitor = 0; visitor < 24; visitor++) {
    const anon = `u${visitor}`;
    const sites = visitor % 5 === 0 ? ['fam-a', 'fam-b'] : [visitor % 2 ? 'fam-a' : 'fam-b'];
    for (const site of sites) {
      let at = base + next(36 * 60) * minute;
      const visits = 1 + next(3);
      for (let visit = 0; visit < visits; visit++) {
        const referrer = referrers[next(referrers.length)];
        const steps = 1 + next(6);
        for (let step = 0; step < steps; step++) {
          counter++;
          const path = paths[next(paths.length)]!;
          const campaign = step === 0 && next(4) === 0 ? '?utm_source=mail&utm_campaign=spring' : '';
          const userAgent = visitor === 7 ? googlebot : visitor % 3 === 0 ? iphone : chrome;
          const base = {
            id: `00000000-0000-4000-f000-${String(counter).padStart(12, '0')}`,
            site_id: site,
            anon_id: anon,
            ts: new Date(at).toISOString(),
            url: `https://shop.example${path}${campaign}`,
            context: { user_agent: userAgent },
            ...(step === 0 && referrer ? { referrer } : {}),
            ...(visitor === 11 ? { internal: true } : {}),
          };
          const kind = next(10);
          // A signup names a user: visitors sharing one (u2, u6, u10…) are one person to attribution.
          if (kind === 0) bySite[site]!.push({ ...base, type: 'signup', user_id: `user-${visitor % 4}`, props: { plan: ['pro', 'free', 1, true][next(4)] } });
          else if (kind === 1) bySite[site]!.push({ ...base, type: 'purchase', props: { plan: 'pro' }, revenue: { amount: ['12.50', '0.00', '3'][next(3)], currency: ['EUR', 'USD'][next(2)] } });
          else bySite[site]!.push({ ...base, type: 'pageview' });
          if (next(3) === 0) {
            counter++;
            bySite[site]!.push({ ...base, id: `00000000-0000-4000-f000-${String(counter).padStart(12, '0')}`, type: 'engagement', props: engagementProps[next(engagementProps.length)] });
          }
          at += (1 + next(8)) * minute;
        }
        at += (31 + next(600)) * minute;
      }
    }
  }
  // Out of order: each site's events stored newest first in part.
  for (const site of Object.keys(bySite)) bySite[site] = [...bySite[site]!.slice(40).reverse(), ...bySite[site]!.slice(0, 40)];
  return bySite;
}

/** An answer without its freshness (positions and times legitimately differ). */
function figuresOf(answer: object): unknown {
  const { freshness: _freshness, ...figures } = answer as { freshness: unknown };
  return JSON.parse(JSON.stringify(figures, (_key, value: unknown) => (value instanceof Map ? Object.fromEntries(value) : value)));
}

describe('families over ClickHouse equal SQLite', () => {
  let server: TestServer;
  let clickhouseServer: ClickHouseTestServer;
  let overClickHouse: ReadModel;
  /** Projects and ships everything stored so far (what a read's bounded wait does, without its bound). */
  let settle: () => Promise<void>;
  let scopes: ReadScope[];

  beforeAll(async () => {
    [server, clickhouseServer] = await Promise.all([startTestServer({ clock: manualClock('2026-03-20T12:00:00.000Z') }), startClickHouse()]);
    const workspace = await seedWorkspace(server, 'fam', { sites: ['fam-a', 'fam-b'] });
    for (const [site, events] of Object.entries(stream())) {
      for (let offset = 0; offset < events.length; offset += 100) {
        const response = await server.request('POST', '/s2s/events', { token: site, body: events.slice(offset, offset + 100) });
        expect(response.status, response.text).toBe(202);
      }
    }
    await server.projected();
    const clickhouse = createClickHouse({ url: clickhouseServer.url, database: 'families', timeoutMs: 10_000 });
    await applyClickHouseSchema(clickhouse);
    const shipper = createShipper({ db: server.db, clickhouse, batchSize: 97 });
    settle = async () => {
      await server.projected();
      await shipper.shipAll();
    };
    await settle();
    // A GDPR delete through the API: SQLite loses the visitor's rows; ClickHouse keeps them (nothing carries the
    // deletion out here) and its reads leave them out by the pending record, written here as the server writes it
    // when CLICKHOUSE_URL is set (this server has none: the shipper is driven by hand).
    recordSubjectDeletion(server.db, 'fam-a', ['u1'], Date.now());
    const deleted = await server.request('POST', '/v1/sites/fam-a/gdpr/delete', { body: { anon_id: 'u1' } });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body.deleted_events).toBeGreaterThan(0);
    overClickHouse = createClickHouseReadModel({
      clickhouse,
      waitForShipping: async () => {
        await server.projected();
        await shipper.shipAll();
        return true;
      },
      deletionsOf: (siteIds) => pendingDeletionsOf(server.db, siteIds),
      embedded: server.app.readModel,
      db: server.db,
    });
    scopes = [
      { siteIds: ['fam-a'], workspaceId: workspace.id },
      { siteIds: ['fam-a', 'fam-b'], workspaceId: workspace.id },
    ];
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await clickhouseServer?.close();
  });

  const day = (iso: string) => dayOf(Date.parse(`${iso}T00:00:00.000Z`));
  const filterCases: [string, ReportFilters, boolean][] = [
    ['no filter', {}, false],
    ['internal included', {}, true],
    ['source', { source: ['google.com'] }, false],
    ['device', { device: ['mobile'] }, false],
    ['path', { path: ['/docs', '/signup'] }, false],
    ['source and path', { source: ['(direct)', 'news.ycombinator.com'], path: ['/pricing'] }, true],
  ];
  const selections = (): [string, Selection][] =>
    scopes.flatMap((scope) =>
      [
        [day('2026-03-02'), day('2026-03-02')],
        [day('2026-03-02'), day('2026-03-04')],
        [day('2026-03-03'), day('2026-03-03')],
      ].flatMap(([fromDay, toDay]) =>
        filterCases.map(([name, filters, withInternal]): [string, Selection] => [`${scope.siteIds.join('+')} ${fromDay}-${toDay} ${name}`, { scope, range: { fromDay: fromDay!, toDay: toDay! }, filters, withInternal }]),
      ),
    );

  it('journeys: from the entry, anchored at a path\'s start or end, 2 to 4 steps', async () => {
    let compared = 0;
    for (const [name, selection] of selections()) {
      for (const anchor of [null, { at: 'start' as const, path: '/pricing' }, { at: 'end' as const, path: '/docs' }]) {
        for (const steps of [2, 4]) {
          const question = { ...selection, anchor, steps, limit: 50 };
          const expected = figuresOf(await server.app.readModel.journeys(question));
          expect(figuresOf(await overClickHouse.journeys(question)), `${name} ${JSON.stringify(anchor)} ${steps}`).toEqual(expected);
          compared += (expected as { paths: unknown[] }).paths.length;
        }
      }
    }
    // The cases are not empty: journeys were counted and compared.
    expect(compared).toBeGreaterThan(200);
  }, 300_000);

  it('page flow: the pages before and after a path, and its exits', async () => {
    for (const [name, selection] of selections()) {
      for (const path of ['/', '/pricing', '/never']) {
        const question = { ...selection, path, limit: 3 };
        expect(figuresOf(await overClickHouse.pageFlow(question)), `${name} ${path}`).toEqual(figuresOf(await server.app.readModel.pageFlow(question)));
      }
    }
  }, 300_000);

  it('page engagement: medians by path and by page, invalid props left out', async () => {
    let pages = 0;
    for (const [name, selection] of selections()) {
      for (const by of ['path', 'page'] as const) {
        const question = { ...selection, by, keys: [...paths, '/?utm_source=mail&utm_campaign=spring', '/never'] };
        const expected = figuresOf(await server.app.readModel.pageEngagement(question));
        expect(figuresOf(await overClickHouse.pageEngagement(question)), `${name} ${by}`).toEqual(expected);
        pages += Object.keys((expected as { pages: object }).pages).length;
      }
    }
    expect(pages).toBeGreaterThan(50);
  }, 300_000);

  it('goals: pageview, event and props goals with revenue, under every filter', async () => {
    const goals = [
      { id: 'signup-page', rule: { kind: 'pageview' as const, path: '/signup' } },
      { id: 'docs-below', rule: { kind: 'pageview' as const, path: '/doc*' } },
      { id: 'signup', rule: { kind: 'event' as const, eventType: 'signup' } },
      { id: 'signup-pro', rule: { kind: 'event' as const, eventType: 'signup', props: { plan: 'pro' } } },
      { id: 'signup-true', rule: { kind: 'event' as const, eventType: 'signup', props: { plan: 'true' } } },
      { id: 'purchase', rule: { kind: 'event' as const, eventType: 'purchase' } },
    ];
    let conversions = 0;
    for (const [name, selection] of selections()) {
      const expected = figuresOf(await server.app.readModel.goals({ ...selection, goals })) as { goals: { conversions: number }[] };
      expect(figuresOf(await overClickHouse.goals({ ...selection, goals })), name).toEqual(expected);
      conversions += expected.goals.reduce((sum, goal) => sum + goal.conversions, 0);
    }
    expect(conversions).toBeGreaterThan(100);
  }, 300_000);

  it('attribution: every purchase with its person and the visits before it, whole ranges and pages', async () => {
    const lookbackMs = 2 * 86_400_000;
    const whole = { startMs: Date.parse('2026-03-02T00:00:00.000Z'), endMs: Date.parse('2026-03-05T00:00:00.000Z'), eventId: null };
    let touchpoints = 0;
    for (const scope of scopes) {
      const first = await overClickHouse.conversions({ scope, ranges: [whole], lookbackMs });
      const asOf = first.asOf;
      const conversions = first.ranges[0]!.conversions;
      expect(conversions.length).toBeGreaterThan(3);
      const middle = conversions[Math.floor(conversions.length / 2)]!;
      const question = {
        scope,
        lookbackMs,
        asOf,
        ranges: [whole, { ...whole, page: { after: null, limit: 2 } }, { ...whole, page: { after: { ts: middle.ts, seq: middle.seq }, limit: 3 } }, { ...whole, eventId: middle.id }],
      };
      const expected = figuresOf(await server.app.readModel.conversions(question)) as { ranges: { conversions: { touchpoints: unknown[]; userId: string | null }[] }[] };
      expect(figuresOf(await overClickHouse.conversions(question)), scope.siteIds.join('+')).toEqual(expected);
      touchpoints += expected.ranges[0]!.conversions.reduce((sum, conversion) => sum + conversion.touchpoints.length, 0);
      expect(expected.ranges[0]!.conversions.some((conversion) => conversion.userId !== null)).toBe(true);
    }
    expect(touchpoints).toBeGreaterThan(5);
  }, 300_000);

  it('a later ranking page is pinned to its first page\'s position while new events arrive', async () => {
    const selection: Selection = { scope: scopes[1]!, range: { fromDay: day('2026-03-02'), toDay: day('2026-03-04') }, filters: {}, withInternal: false };
    const first = await overClickHouse.ranking({ ...selection, by: 'path', order: 'pageviews', offset: 0, limit: 2 });
    // Pageviews of a path new to the site, more than the first row's: unpinned it leads and every later row moves down
    // a place; the pinned next page must not see them.
    const response = await server.request('POST', '/s2s/events', {
      token: 'fam-b',
      body: Array.from({ length: first.rows[0]!.figures.pageviews + 10 }, (_, index) => ({
        id: `00000000-0000-4000-f100-${String(index).padStart(12, '0')}`,
        site_id: 'fam-b',
        anon_id: `late-${index}`,
        ts: '2026-03-03T12:00:00.000Z',
        type: 'pageview',
        url: 'https://shop.example/new-landing',
        context: { user_agent: chrome },
      })),
    });
    expect(response.status, response.text).toBe(202);
    const later = { ...selection, by: 'path' as const, order: 'pageviews' as const, offset: 2, limit: 2, asOf: first.freshness.position };
    const pinned = figuresOf(await overClickHouse.ranking(later));
    expect(pinned).toEqual(figuresOf(await server.app.readModel.ranking(later)));
    // Unpinned, the new pageviews count: the pin made a difference. (Shipped first: on a loaded machine the read's
    // bounded wait for the shipper can run out, and then it answers as of what ClickHouse had.)
    await settle();
    expect(figuresOf(await overClickHouse.ranking({ ...later, asOf: undefined }))).not.toEqual(pinned);
  }, 300_000);
});
