// The read model's contract: what every implementation (SQLite today, ClickHouse next) must answer for one fixed
// set of stored events, figure for figure, computed by hand below. An implementation's test file calls
// describeReadModelContract with a way to start it over a fresh store; the cases never look beneath the interface.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReadModel } from '../../src/read-model/read-model.ts';
import type { ReadScope, Selection } from '../../src/read-model/questions.ts';
import type { ListedEvent } from '../../src/read-model/event-questions.ts';
import type { TimelinePage, TimelineQuestion } from '../../src/read-model/person-questions.ts';
import type { Figures } from '../../src/read-model/report-questions.ts';
import { dayOf } from '../../src/vocabulary/periods.ts';
import type { GoalFilter } from '../../src/vocabulary/goal-rule.ts';
import { describeAttributionQuestions } from './attribution-contract.ts';
import { describeBehaviourQuestions } from './behaviour-contract.ts';
import { describeFunnelQuestions } from './funnel-contract.ts';
import { describeGoalQuestions } from './goal-contract.ts';
import { describeEngagementQuestions } from './engagement-contract.ts';

/** A read model over a fresh store holding two sites of one workspace, as an implementation's harness starts it. */
export interface ReadModelUnderTest {
  readModel: ReadModel;
  /** The two sites' ids and their workspace's id. */
  siteA: string;
  siteB: string;
  workspaceId: string;
  /** Stores wire events (CONTRACT section 2) through the real ingest, as a server-to-server client sends them. */
  store(siteId: string, events: Record<string, unknown>[]): Promise<void>;
  close(): Promise<void>;
}

/** What the families' cases (funnel-contract.ts, attribution-contract.ts) are given once the fixture is stored. */
export interface ContractFixture {
  subject: ReadModelUnderTest;
  /** The fixture's two days. */
  range: { fromDay: number; toDay: number };
  /** Builds a wire event of the fixture's kind (extra fields override). */
  event: typeof event;
  /** The id of the fixture's purchase (site B, day 1). */
  purchaseId: string;
}

/** The time every harness's clock must show: after the fixture's days, so no range touches "today". */
export const contractNow = '2026-03-20T12:00:00.000Z';

const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const iphone = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const googlebot = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const day1 = '2026-03-02';
const day2 = '2026-03-03';

let sequence = 0;
function event(siteId: string, anonId: string, at: string, type: string, path: string, extra: Record<string, unknown> = {}) {
  sequence++;
  const id = `00000000-0000-4000-8000-${String(sequence).padStart(12, '0')}`;
  return { id, site_id: siteId, anon_id: anonId, ts: at, type, url: `https://shop.example${path}`, context: { user_agent: chrome }, ...extra };
}

/**
 * The fixture, with what it means:
 * - site A, day 1: v1 arrives from Google on / (10:00), views /pricing (10:05), signs up on /pricing (10:06):
 *   one visit of 6 minutes, 2 pageviews, 3 events. v2 views /pricing once on an iPhone (11:00): a bounce, direct.
 *   A Googlebot pageview (never counted) and an internal pageview by v9 (counted with internal traffic only).
 * - site A, day 2: v1 comes back to / directly (12:00): a bounce.
 * - site B, day 1: v3 lands on / from a spring e-mail campaign (09:00) and buys for 12.50 EUR (09:01).
 */
function fixture(siteA: string, siteB: string) {
  return {
    [siteA]: [
      event(siteA, 'v1', `${day1}T10:00:00.000Z`, 'pageview', '/', { referrer: 'https://www.google.com/search?q=shop' }),
      event(siteA, 'v1', `${day1}T10:05:00.000Z`, 'pageview', '/pricing'),
      event(siteA, 'v1', `${day1}T10:06:00.000Z`, 'signup', '/pricing'),
      event(siteA, 'v2', `${day1}T11:00:00.000Z`, 'pageview', '/pricing', { context: { user_agent: iphone } }),
      event(siteA, 'bot', `${day1}T11:30:00.000Z`, 'pageview', '/', { context: { user_agent: googlebot } }),
      event(siteA, 'v9', `${day1}T12:00:00.000Z`, 'pageview', '/admin', { internal: true }),
      event(siteA, 'v1', `${day2}T12:00:00.000Z`, 'pageview', '/'),
    ],
    [siteB]: [
      event(siteB, 'v3', `${day1}T09:00:00.000Z`, 'pageview', '/?utm_source=news&utm_medium=email&utm_campaign=spring'),
      event(siteB, 'v3', `${day1}T09:01:00.000Z`, 'purchase', '/thanks', { revenue: { amount: '12.50', currency: 'EUR' } }),
    ],
  };
}

const range = { fromDay: dayOf(Date.parse(`${day1}T00:00:00.000Z`)), toDay: dayOf(Date.parse(`${day2}T00:00:00.000Z`)) };

/** Only the figures a case names are compared. */
function pick<Shown extends Figures>(figures: Shown, names: (keyof Shown)[]): Partial<Shown> {
  return Object.fromEntries(names.map((name) => [name, figures[name]])) as Partial<Shown>;
}

/** The families of questions the suite has cases for. */
export type ContractFamily = 'report' | 'time' | 'event' | 'person' | 'funnel' | 'attribution' | 'behaviour' | 'goal' | 'engagement';
const allFamilies: readonly ContractFamily[] = ['report', 'time', 'event', 'person', 'funnel', 'attribution', 'behaviour', 'goal', 'engagement'];

/** `families`: the families whose cases run (default: all), for an implementation that answers only some so far. */
export function describeReadModelContract(implementation: string, start: () => Promise<ReadModelUnderTest>, families: readonly ContractFamily[] = allFamilies): void {
  // A family left out registers nothing (no skipped cases): its implementation's test says which families it runs.
  const describeFamily = (family: ContractFamily) => (name: string, body: () => void) => {
    if (families.includes(family)) describe(name, body);
  };
  describe(`read model contract: ${implementation}`, () => {
    let subject: ReadModelUnderTest;
    let siteAOnly: ReadScope;
    let bothSites: ReadScope;
    const selection = (scope: ReadScope, extra: Partial<Selection> = {}): Selection => ({ scope, range, filters: {}, withInternal: false, ...extra });

    let purchaseId = '';
    const siteBOnly = (): ReadScope => ({ siteIds: [subject.siteB], workspaceId: subject.workspaceId });

    beforeAll(async () => {
      subject = await start();
      const stored = fixture(subject.siteA, subject.siteB);
      purchaseId = stored[subject.siteB]!.find((wire) => wire.type === 'purchase')!.id;
      for (const [siteId, events] of Object.entries(stored)) await subject.store(siteId, events);
      siteAOnly = { siteIds: [subject.siteA], workspaceId: subject.workspaceId };
      bothSites = { siteIds: [subject.siteA, subject.siteB], workspaceId: subject.workspaceId };
    });
    afterAll(async () => {
      await subject?.close();
    });

    describeFamily('report')('report questions', () => {
      it('summarises a site: exact visitors, visits, bounces and durations, without bots or internal traffic', async () => {
        const answer = await subject.readModel.summary({ ...selection(siteAOnly), visitors: true });
        expect(pick(answer.total, ['visitors', 'visits', 'pageviews', 'events', 'bounces', 'durationMs', 'visitPageviews', 'visitEvents'])).toEqual({
          visitors: 2,
          visits: 3,
          pageviews: 4,
          events: 5,
          bounces: 2,
          durationMs: 6 * 60_000,
          visitPageviews: 4,
          visitEvents: 5,
        });
        expect(answer.days.map((day) => pick(day, ['day', 'visitors', 'visits', 'pageviews', 'events']))).toEqual([
          { day: range.fromDay, visitors: 2, visits: 2, pageviews: 3, events: 4 },
          { day: range.toDay, visitors: 1, visits: 1, pageviews: 1, events: 1 },
        ]);
        expect(answer.freshness.caughtUp).toBe(true);
        expect(answer.freshness.watermarkMs).not.toBeNull();
        expect(answer.computedFrom).toBe('rollups');
      });

      it('counts internal traffic only when asked, and a visitor once across the sites of a workspace', async () => {
        const internal = await subject.readModel.summary({ ...selection(siteAOnly, { withInternal: true }), visitors: true });
        expect(pick(internal.total, ['visitors', 'visits', 'pageviews'])).toEqual({ visitors: 3, visits: 4, pageviews: 5 });
        const both = await subject.readModel.summary({ ...selection(bothSites), visitors: true });
        expect(pick(both.total, ['visitors', 'visits', 'pageviews', 'events', 'conversions'])).toEqual({ visitors: 3, visits: 4, pageviews: 5, events: 7, conversions: 1 });
      });

      it('leaves visitors uncounted when the question asks for none', async () => {
        const answer = await subject.readModel.summary({ ...selection(siteAOnly), visitors: false });
        expect(answer.total.visitors).toBe(0);
        expect(answer.total.visits).toBe(3);
      });

      it('ranks pages by pageviews with entries, exits and exact visitors', async () => {
        const answer = await subject.readModel.ranking({ ...selection(siteAOnly), by: 'path', order: 'pageviews', offset: 0, limit: 10 });
        expect(answer.rows.map((row) => ({ key: row.key, ...pick(row.figures, ['visitors', 'pageviews', 'visits', 'exits']) }))).toEqual([
          { key: '/', visitors: 1, pageviews: 2, visits: 2, exits: 1 },
          { key: '/pricing', visitors: 2, pageviews: 2, visits: 1, exits: 2 },
        ]);
        expect(answer.more).toBe(false);
      });

      it('pages a ranking: offset and limit, and whether more rows follow', async () => {
        const first = await subject.readModel.ranking({ ...selection(siteAOnly), by: 'path', order: 'pageviews', offset: 0, limit: 1 });
        expect(first.rows.map((row) => row.key)).toEqual(['/']);
        expect(first.more).toBe(true);
        const second = await subject.readModel.ranking({ ...selection(siteAOnly), by: 'path', order: 'pageviews', offset: 1, limit: 1, asOf: first.freshness.position });
        expect(second.rows.map((row) => row.key)).toEqual(['/pricing']);
        expect(second.more).toBe(false);
      });

      it('answers a batch of rankings (a dashboard\'s panels) each as ranking() answers it, with and without filters', async () => {
        const asks = [
          { by: 'path', order: 'pageviews', limit: 10 },
          { by: 'source', order: 'visits', limit: 1 },
          { by: 'device', order: 'visits', limit: 10 },
          { by: 'campaign', order: 'visits', limit: 10 },
        ] as const;
        for (const filters of [{}, { source: ['google.com'] }, { source: ['google.com', 'direct'], device: ['desktop'] }]) {
          const batch = await subject.readModel.rankings({ ...selection(siteAOnly, { filters }), rankings: asks });
          expect(batch.rankings).toHaveLength(asks.length);
          for (const [index, ask] of asks.entries()) {
            const alone = await subject.readModel.ranking({ ...selection(siteAOnly, { filters }), ...ask, offset: 0 });
            const { rows, more } = batch.rankings[index]!;
            expect({ rows, more }, `${JSON.stringify(filters)} ${ask.by}`).toEqual({ rows: alone.rows, more: alone.more });
          }
        }
      });

      it('answers a dashboard (rankings, series and goals of one selection together) each part as its own question does', async () => {
        const asks = [
          { by: 'path', order: 'pageviews', limit: 10 },
          { by: 'source', order: 'visits', limit: 1 },
          { by: 'country', order: 'visits', limit: 10 },
        ] as const;
        const goals: GoalFilter[] = [{ id: 'pricing', rule: { kind: 'pageview', path: '/pricing' } }, { id: 'buy', rule: { kind: 'event', eventType: 'purchase' } }];
        const views: [Selection['filters'], 'day' | 'week'][] = [
          [{}, 'day'],
          [{ source: ['google.com'] }, 'week'],
          [{ source: ['google.com', 'direct'], device: ['desktop'] }, 'day'],
          [{ device: ['desktop'], path: ['/pricing'] }, 'week'],
          [{ goal: goals[0]! }, 'day'],
        ];
        for (const [filters, interval] of views) {
          const question = selection(siteAOnly, { filters });
          const label = `${JSON.stringify(filters)} by ${interval}`;
          const dashboard = await subject.readModel.dashboard({ ...question, rankings: asks, interval, goals });
          const batch = await subject.readModel.rankings({ ...question, rankings: asks });
          expect(dashboard.rankings.map(({ rows, more }) => ({ rows, more })), label).toEqual(batch.rankings.map(({ rows, more }) => ({ rows, more })));
          const series = await subject.readModel.series({ ...question, interval });
          expect({ total: dashboard.series.total, points: dashboard.series.points }, label).toEqual({ total: series.total, points: series.points });
          const alone = await subject.readModel.goals({ ...question, goals });
          expect({ visitors: dashboard.goals.visitors, goals: dashboard.goals.goals }, label).toEqual({ visitors: alone.visitors, goals: alone.goals });
        }
      });

      it('ranks sources by visits (a visit takes its first event\'s source) and filters by one', async () => {
        const answer = await subject.readModel.ranking({ ...selection(siteAOnly), by: 'source', order: 'visits', offset: 0, limit: 10 });
        expect(answer.rows.map((row) => ({ key: row.key, ...pick(row.figures, ['visitors', 'visits', 'bounces']) }))).toEqual([
          { key: 'direct', visitors: 2, visits: 2, bounces: 2 },
          { key: 'google.com', visitors: 1, visits: 1, bounces: 0 },
        ]);
        const filtered = await subject.readModel.summary({ ...selection(siteAOnly, { filters: { source: ['google.com'] } }), visitors: true });
        expect(pick(filtered.total, ['visitors', 'visits', 'pageviews', 'events'])).toEqual({ visitors: 1, visits: 1, pageviews: 2, events: 3 });
      });

      it('groups sources (groupSources): google.com and google.de are one Google row whose visitors are their union', async () => {
        // A day of its own: g1 comes from google.com, then (40 minutes later, a new visit) from google.de; g2 from
        // google.de; g3 from t.co (Twitter); g4 from a host no list names.
        const day = '2026-03-06';
        const referred = (anonId: string, time: string, host: string) => event(subject.siteA, anonId, `${day}T${time}:00.000Z`, 'pageview', '/', { referrer: `https://${host}/x` });
        await subject.store(subject.siteA, [
          referred('g1', '09:00', 'www.google.com'),
          referred('g1', '09:40', 'www.google.de'),
          referred('g2', '10:00', 'www.google.de'),
          referred('g3', '11:00', 't.co'),
          referred('g4', '12:00', 'shop-news.example'),
        ]);
        const dayRange = { fromDay: dayOf(Date.parse(`${day}T00:00:00.000Z`)), toDay: dayOf(Date.parse(`${day}T00:00:00.000Z`)) };
        const ranked = (groupSources: boolean) => subject.readModel.ranking({ ...selection(siteAOnly, { range: dayRange }), by: 'source', order: 'visits', offset: 0, limit: 10, groupSources });
        const rowsOf = (answer: Awaited<ReturnType<typeof ranked>>) => answer.rows.map((row) => ({ key: row.key, ...pick(row.figures, ['visitors', 'visits', 'pageviews']) }));
        expect(rowsOf(await ranked(true))).toEqual([
          { key: 'Google', visitors: 2, visits: 3, pageviews: 3 },
          { key: 'Twitter', visitors: 1, visits: 1, pageviews: 1 },
          { key: 'shop-news.example', visitors: 1, visits: 1, pageviews: 1 },
        ]);
        expect(rowsOf(await ranked(false))).toEqual([
          { key: 'google.de', visitors: 2, visits: 2, pageviews: 2 },
          { key: 'google.com', visitors: 1, visits: 1, pageviews: 1 },
          { key: 'shop-news.example', visitors: 1, visits: 1, pageviews: 1 },
          { key: 't.co', visitors: 1, visits: 1, pageviews: 1 },
        ]);
        // A group's name as a source filter selects exactly its stored sources.
        const google = await subject.readModel.summary({ ...selection(siteAOnly, { range: dayRange, filters: { source: ['Google'] } }), visitors: true });
        expect(pick(google.total, ['visitors', 'visits', 'pageviews'])).toEqual({ visitors: 2, visits: 3, pageviews: 3 });
      });

      it('answers combined filters from raw events with the same figures', async () => {
        const answer = await subject.readModel.summary({ ...selection(siteAOnly, { filters: { source: ['direct'], device: ['mobile'] } }), visitors: true });
        expect(answer.computedFrom).toBe('events');
        expect(pick(answer.total, ['visitors', 'visits', 'pageviews', 'bounces'])).toEqual({ visitors: 1, visits: 1, pageviews: 1, bounces: 1 });
      });

      it('ranks campaigns with conversions and exact revenue in minor units', async () => {
        const answer = await subject.readModel.ranking({ ...selection(bothSites), by: 'campaign', order: 'visits', offset: 0, limit: 10 });
        expect(answer.rows).toHaveLength(1);
        expect(answer.rows[0]!.key).toBe(JSON.stringify(['news', 'email', 'spring']));
        expect(pick(answer.rows[0]!.figures, ['visitors', 'visits', 'conversions'])).toEqual({ visitors: 1, visits: 1, conversions: 1 });
        expect([...answer.rows[0]!.figures.revenue]).toEqual([['EUR', 1250]]);
      });

      // Revenue is defined for campaigns only: every other answer leaves it empty, from the rollups (a summary, a path
      // ranking) as from raw events (a source ranking filtered by path), even over the purchase's own page.
      it.each([
        ['a summary', async (scope: ReadScope) => (await subject.readModel.summary({ ...selection(scope), visitors: true })).total],
        ['a day of a summary', async (scope: ReadScope) => (await subject.readModel.summary({ ...selection(scope), visitors: true })).days[0]!],
        ['a series', async (scope: ReadScope) => (await subject.readModel.series({ ...selection(scope), interval: 'day' })).points[0]!],
        ['a path ranking', async (scope: ReadScope) => (await subject.readModel.ranking({ ...selection(scope), by: 'path', order: 'events', offset: 0, limit: 10 })).rows.find((row) => row.key === '/thanks')!.figures],
        [
          'a source ranking filtered by path',
          async (scope: ReadScope) => (await subject.readModel.ranking({ ...selection(scope, { filters: { path: ['/thanks'] } }), by: 'source', order: 'events', offset: 0, limit: 10 })).rows[0]!.figures,
        ],
      ])('leaves revenue out of %s (campaigns only)', async (_name, figuresOf) => {
        const figures = await figuresOf(siteBOnly());
        expect(figures.conversions).toBe(1);
        expect([...figures.revenue]).toEqual([]);
      });

      // Exits are defined for pages only: a summary or series filtered by a path has none, though its visits exit there.
      it.each([
        ['a summary', async (question: Selection) => { const answer = await subject.readModel.summary({ ...question, visitors: true }); return [answer.total, ...answer.days]; }],
        ['a series by day', async (question: Selection) => { const answer = await subject.readModel.series({ ...question, interval: 'day' }); return [answer.total, ...answer.points]; }],
        ['a series by week', async (question: Selection) => { const answer = await subject.readModel.series({ ...question, interval: 'week' }); return [answer.total, ...answer.points]; }],
      ])('gives %s filtered by path no exits', async (_name, figuresOf) => {
        const figures = await figuresOf(selection(siteAOnly, { filters: { path: ['/pricing'] } }));
        expect(figures[0]!.visits).toBe(1);
        expect(figures.map((shown) => shown.exits)).toEqual(figures.map(() => 0));
      });

      it('ranks pages: the path with its query string, utm_* parameters left out', async () => {
        const answer = await subject.readModel.ranking({ ...selection(siteBOnly()), by: 'page', order: 'pageviews', offset: 0, limit: 10 });
        // v3's landing page came with utm_source, utm_medium and utm_campaign only: its page is the bare path. The
        // purchase on /thanks counts as an event there, and (not being a pageview) brings it no visitor.
        expect(answer.rows.map((row) => ({ key: row.key, ...pick(row.figures, ['visitors', 'visits', 'pageviews', 'events', 'exits']) }))).toEqual([
          { key: '/', visitors: 1, visits: 1, pageviews: 1, events: 1, exits: 1 },
          { key: '/thanks', visitors: 0, visits: 0, pageviews: 0, events: 1, exits: 0 },
        ]);
      });

      it('ranks event types by events and visit dimensions by visits', async () => {
        const types = await subject.readModel.ranking({ ...selection(siteAOnly), by: 'type', order: 'events', offset: 0, limit: 10 });
        expect(types.rows.map((row) => [row.key, row.figures.events])).toEqual([['pageview', 4], ['signup', 1]]);
        const devices = await subject.readModel.ranking({ ...selection(siteAOnly), by: 'device', order: 'visits', offset: 0, limit: 10 });
        expect(devices.rows.map((row) => [row.key, row.figures.visits, row.figures.visitors])).toEqual([['desktop', 2, 1], ['mobile', 1, 1]]);
      });

      it('breaks one event type down by a prop\'s values from the event log', async () => {
        await subject.store(subject.siteA, [
          event(subject.siteA, 'v1', `${day2}T12:01:00.000Z`, 'plan_chosen', '/', { props: { plan: 'pro' } }),
          event(subject.siteA, 'v2', `${day2}T12:02:00.000Z`, 'plan_chosen', '/', { props: { plan: 'pro' } }),
          event(subject.siteA, 'v2', `${day2}T12:03:00.000Z`, 'plan_chosen', '/', { props: { plan: 'free' } }),
        ]);
        const answer = await subject.readModel.propValues({ ...selection(siteAOnly), type: 'plan_chosen', property: 'plan', valueChars: 500, limit: 10 });
        expect(answer.computedFrom).toBe('event_log');
        expect(answer.rows).toEqual([
          { value: 'pro', events: 2, visitors: 2 },
          { value: 'free', events: 1, visitors: 1 },
        ]);
      });
    });

    describeFamily('time')('time questions', () => {
      const firstDay = { fromDay: range.fromDay, toDay: range.fromDay };
      const at = (time: string) => Date.parse(`${day1}T${time}Z`);

      it('gives a day\'s 24 hours, a visit in the hour it starts, and totals as the summary counts them', async () => {
        const answer = await subject.readModel.series({ ...selection(siteAOnly, { range: firstDay }), interval: 'hour' });
        expect(answer.points).toHaveLength(24);
        expect(answer.points[0]!.startMs).toBe(at('00:00:00.000'));
        const busy = answer.points.filter((point) => point.events > 0).map((point) => ({ startMs: point.startMs, ...pick(point, ['visitors', 'visits', 'pageviews', 'events']) }));
        expect(busy).toEqual([
          { startMs: at('10:00:00.000'), visitors: 1, visits: 1, pageviews: 2, events: 3 },
          { startMs: at('11:00:00.000'), visitors: 1, visits: 1, pageviews: 1, events: 1 },
        ]);
        expect(pick(answer.total, ['visitors', 'visits', 'pageviews', 'events'])).toEqual({ visitors: 2, visits: 2, pageviews: 3, events: 4 });
      });

      it('gives weeks and months as whole-day intervals cut to the range (2026-03-02 is a Monday)', async () => {
        for (const interval of ['day', 'week', 'month'] as const) {
          const answer = await subject.readModel.series({ ...selection(siteAOnly, { range: firstDay }), interval });
          expect(answer.points.map((point) => ({ startMs: point.startMs, ...pick(point, ['visitors', 'visits', 'pageviews']) })), interval).toEqual([
            { startMs: at('00:00:00.000'), visitors: 2, visits: 2, pageviews: 3 },
          ]);
        }
      });

      it('counts only what happened before a moment: events before it, visits as far as they went', async () => {
        const answer = await subject.readModel.series({ ...selection(siteAOnly, { range: firstDay }), interval: 'hour', untilMs: at('10:05:00.000') });
        expect(pick(answer.total, ['visitors', 'visits', 'pageviews', 'events', 'bounces', 'durationMs'])).toEqual({
          visitors: 1,
          visits: 1,
          pageviews: 1,
          events: 1,
          bounces: 1,
          durationMs: 0,
        });
        expect(answer.points[11]!.events).toBe(0);
      });

      it('counts the last 30 minutes by event time, without internal traffic or bots', async () => {
        const answer = await subject.readModel.realtime({ scope: siteAOnly, nowMs: at('10:06:00.000') });
        const perMinute = Array.from({ length: 30 }, () => 0);
        perMinute[23] = 1; // 10:00, 6 minutes before
        perMinute[28] = 1; // 10:05, exactly a minute before: the minute it ends
        expect(answer).toMatchObject({ visitorsLast5m: 1, visitorsLast30m: 1, pageviewsLast30m: 2, perMinute });
        const later = await subject.readModel.realtime({ scope: siteAOnly, nowMs: at('12:10:00.000') });
        expect(later).toMatchObject({ visitorsLast5m: 0, visitorsLast30m: 0, pageviewsLast30m: 0 });
      });
    });

    describeFamily('event')('event questions', () => {
      // Day 1 only: the report cases add events on day 2, and the cases below add theirs on later days.
      const day1Only = { fromDay: range.fromDay, toDay: range.fromDay };
      const shown = (events: ListedEvent[]) => events.map((listed) => [listed.anonId, listed.type, listed.path, new Date(listed.tsMs).toISOString()]);
      const siteADay1 = [
        ['v1', 'pageview', '/', `${day1}T10:00:00.000Z`],
        ['v1', 'pageview', '/pricing', `${day1}T10:05:00.000Z`],
        ['v1', 'signup', '/pricing', `${day1}T10:06:00.000Z`],
        ['v2', 'pageview', '/pricing', `${day1}T11:00:00.000Z`],
      ];

      it('lists a site\'s events in ingest order with their fields, the bot\'s stored event and internal traffic left out', async () => {
        const page = await subject.readModel.listEvents({ ...selection(siteAOnly, { range: day1Only }), limit: 50 });
        expect(shown(page.events)).toEqual(siteADay1);
        expect(page.more).toBe(false);
        expect(page.computedFrom).toBe('event_log');
        expect(page.freshness.caughtUp).toBe(true);
        const positions = page.events.map((listed) => listed.position);
        expect(positions).toEqual([...positions].sort((a, b) => a - b));
        expect(new Set(positions).size).toBe(4);
        const [landing, , , mobile] = page.events;
        expect(landing).toMatchObject({ siteId: subject.siteA, source: 'google.com', deviceType: 'desktop', browser: 'Chrome' });
        expect(mobile).toMatchObject({ siteId: subject.siteA, source: 'direct', deviceType: 'mobile', os: 'iOS' });
        // The text received, as stored: the domain reads url, referrer and props from it.
        expect(JSON.parse(landing!.raw)).toMatchObject({ url: 'https://shop.example/', referrer: 'https://www.google.com/search?q=shop' });
        const internal = await subject.readModel.listEvents({ ...selection(siteAOnly, { range: day1Only, withInternal: true }), limit: 50 });
        expect(shown(internal.events)).toEqual([...siteADay1, ['v9', 'pageview', '/admin', `${day1}T12:00:00.000Z`]]);
      });

      it('pages a list after the last position shown, and merges the sites of a scope by position', async () => {
        const first = await subject.readModel.listEvents({ ...selection(siteAOnly, { range: day1Only }), limit: 3 });
        expect(shown(first.events)).toEqual(siteADay1.slice(0, 3));
        expect(first.more).toBe(true);
        const second = await subject.readModel.listEvents({ ...selection(siteAOnly, { range: day1Only }), afterPosition: first.events[2]!.position, limit: 3 });
        expect(shown(second.events)).toEqual(siteADay1.slice(3));
        expect(second.more).toBe(false);
        // Site B's events were stored after site A's.
        const both = await subject.readModel.listEvents({ ...selection(bothSites, { range: day1Only }), limit: 50 });
        expect(shown(both.events)).toEqual([
          ...siteADay1,
          ['v3', 'pageview', '/', `${day1}T09:00:00.000Z`],
          ['v3', 'purchase', '/thanks', `${day1}T09:01:00.000Z`],
        ]);
        expect(both.events.map((listed) => listed.siteId)).toEqual([subject.siteA, subject.siteA, subject.siteA, subject.siteA, subject.siteB, subject.siteB]);
      });

      it('lists newest first, paging back from the last position shown, across the sites of a scope', async () => {
        const first = await subject.readModel.listEvents({ ...selection(siteAOnly, { range: day1Only }), newestFirst: true, limit: 3 });
        expect(shown(first.events)).toEqual([...siteADay1].reverse().slice(0, 3));
        expect(first.more).toBe(true);
        const second = await subject.readModel.listEvents({ ...selection(siteAOnly, { range: day1Only }), newestFirst: true, afterPosition: first.events[2]!.position, limit: 3 });
        expect(shown(second.events)).toEqual([siteADay1[0]]);
        expect(second.more).toBe(false);
        const both = await subject.readModel.listEvents({ ...selection(bothSites, { range: day1Only }), newestFirst: true, limit: 2 });
        expect(shown(both.events)).toEqual([
          ['v3', 'purchase', '/thanks', `${day1}T09:01:00.000Z`],
          ['v3', 'pageview', '/', `${day1}T09:00:00.000Z`],
        ]);
        expect(both.more).toBe(true);
      });

      it('interleaves the sites of a scope in the order their events were stored', async () => {
        const day = '2026-03-14';
        const dayOnly = { fromDay: dayOf(Date.parse(`${day}T00:00:00.000Z`)), toDay: dayOf(Date.parse(`${day}T00:00:00.000Z`)) };
        await subject.store(subject.siteA, [event(subject.siteA, 'w1', `${day}T10:00:00.000Z`, 'pageview', '/one')]);
        await subject.store(subject.siteB, [event(subject.siteB, 'w2', `${day}T08:00:00.000Z`, 'pageview', '/two')]);
        await subject.store(subject.siteA, [event(subject.siteA, 'w1', `${day}T09:00:00.000Z`, 'pageview', '/three')]);
        const page = await subject.readModel.listEvents({ ...selection(bothSites, { range: dayOnly }), limit: 50 });
        expect(page.events.map((listed) => [listed.siteId, listed.path])).toEqual([[subject.siteA, '/one'], [subject.siteB, '/two'], [subject.siteA, '/three']]);
        const first = await subject.readModel.listEvents({ ...selection(bothSites, { range: dayOnly }), limit: 2 });
        expect(first.more).toBe(true);
        const second = await subject.readModel.listEvents({ ...selection(bothSites, { range: dayOnly }), afterPosition: first.events[1]!.position, limit: 2 });
        expect(second.events.map((listed) => listed.path)).toEqual(['/three']);
        expect(second.more).toBe(false);
      });

      it('lists by a visit filter: the events of the visits it selects, once the visits are derived', async () => {
        const page = await subject.readModel.listEvents({ ...selection(siteAOnly, { range: day1Only, filters: { source: ['google.com'] } }), limit: 50 });
        expect(page.freshness.caughtUp).toBe(true);
        // v1's later events have no referrer of their own: they belong to the visit that came from Google.
        expect(shown(page.events)).toEqual(siteADay1.slice(0, 3));
      });

      it('counts events by type, most first and ties by type', async () => {
        const siteA = await subject.readModel.eventTypeCounts(selection(siteAOnly, { range: day1Only }));
        expect(siteA.types).toEqual([{ type: 'pageview', count: 3 }, { type: 'signup', count: 1 }]);
        expect(siteA.computedFrom).toBe('event_log');
        const both = await subject.readModel.eventTypeCounts(selection(bothSites, { range: day1Only, withInternal: true }));
        expect(both.types).toEqual([{ type: 'pageview', count: 5 }, { type: 'purchase', count: 1 }, { type: 'signup', count: 1 }]);
        const mobile = await subject.readModel.eventTypeCounts(selection(siteAOnly, { range: day1Only, filters: { device: ['mobile'] } }));
        expect(mobile.types).toEqual([{ type: 'pageview', count: 1 }]);
      });

      it('counts a window\'s events by path and bucket, the busiest paths first, from where counting starts', async () => {
        const startMs = Date.parse(`${day1}T10:00:00.000Z`);
        const window = { startMs, endMs: startMs + 60 * 60_000, bucketMs: 5 * 60_000 };
        const buckets = (counts: Record<number, number>) => Array.from({ length: 12 }, (_, index) => counts[index] ?? 0);
        const question = { scope: siteAOnly, filters: {}, withInternal: false, window, countFromMs: startMs, limit: 10 };
        // v2's pageview at 11:00 is the window's end: not in it.
        const activity = await subject.readModel.pathActivity(question);
        expect(activity.paths).toEqual([
          { path: '/pricing', total: 2, buckets: buckets({ 1: 2 }) },
          { path: '/', total: 1, buckets: buckets({ 0: 1 }) },
        ]);
        expect(activity.more).toBe(false);
        expect(activity.computedFrom).toBe('event_log');
        const busiest = await subject.readModel.pathActivity({ ...question, limit: 1 });
        expect(busiest.paths.map((row) => row.path)).toEqual(['/pricing']);
        expect(busiest.more).toBe(true);
        const clipped = await subject.readModel.pathActivity({ ...question, countFromMs: startMs + 5 * 60_000 });
        expect(clipped.paths).toEqual([{ path: '/pricing', total: 2, buckets: buckets({ 1: 2 }) }]);
      });

      it('tails one site\'s log after a position, in batches, with the stream\'s filters', async () => {
        const tail = { siteId: subject.siteA, afterPosition: 0, type: null, anonId: null, range: day1Only, filters: {}, withInternal: false, limit: 500 };
        const newest = await subject.readModel.newestPosition();
        const all = await subject.readModel.eventsAfter(tail);
        expect(shown(all.events)).toEqual(siteADay1);
        // Fewer than asked: every event up to the newest stored one was looked at.
        expect(all.throughPosition).toBe(newest);
        const batch = await subject.readModel.eventsAfter({ ...tail, limit: 2 });
        expect(shown(batch.events)).toEqual(siteADay1.slice(0, 2));
        expect(batch.throughPosition).toBe(batch.events[1]!.position);
        const rest = await subject.readModel.eventsAfter({ ...tail, afterPosition: batch.throughPosition });
        expect(shown(rest.events)).toEqual(siteADay1.slice(2));
        expect(rest.throughPosition).toBe(newest);
        const nothingNew = await subject.readModel.eventsAfter({ ...tail, afterPosition: newest });
        expect(nothingNew).toEqual({ events: [], throughPosition: newest });
        expect(shown((await subject.readModel.eventsAfter({ ...tail, type: 'signup' })).events)).toEqual([siteADay1[2]]);
        expect(shown((await subject.readModel.eventsAfter({ ...tail, anonId: 'v2' })).events)).toEqual([siteADay1[3]]);
        expect((await subject.readModel.eventsAfter({ ...tail, anonId: 'bot' })).events).toEqual([]);
        expect((await subject.readModel.eventsAfter({ ...tail, anonId: 'v9' })).events).toEqual([]);
        expect((await subject.readModel.eventsAfter({ ...tail, anonId: 'v9', withInternal: true })).events).toHaveLength(1);
        // A visit filter looks at events whose visit is derived (the list question above waited for them).
        await subject.readModel.listEvents({ ...selection(siteAOnly, { range: day1Only, filters: { device: ['mobile'] } }), limit: 1 });
        expect(shown((await subject.readModel.eventsAfter({ ...tail, filters: { device: ['mobile'] } })).events)).toEqual([siteADay1[3]]);
      });

      it('moves the newest position past each stored event, and a tail from there finds just it', async () => {
        const before = await subject.readModel.newestPosition();
        await subject.store(subject.siteB, [event(subject.siteB, 'v4', '2026-03-10T08:00:00.000Z', 'pageview', '/late')]);
        const after = await subject.readModel.newestPosition();
        expect(after).toBeGreaterThan(before);
        const tail = await subject.readModel.eventsAfter({ siteId: subject.siteB, afterPosition: before, type: null, anonId: null, range: undefined, filters: {}, withInternal: false, limit: 10 });
        expect(tail.events.map((listed) => [listed.position, listed.siteId, listed.anonId, listed.path])).toEqual([[after, subject.siteB, 'v4', '/late']]);
        expect(tail.throughPosition).toBe(after);
        // Another site's tail looks at the same positions and finds nothing of it.
        const otherSite = await subject.readModel.eventsAfter({ siteId: subject.siteA, afterPosition: before, type: null, anonId: null, range: undefined, filters: {}, withInternal: false, limit: 10 });
        expect(otherSite).toEqual({ events: [], throughPosition: after });
      });
    });

    describeFamily('person')('person questions', () => {
      const day = '2026-03-12';
      const timelineOf = (question: Partial<TimelineQuestion>) =>
        subject.readModel.timeline({ siteId: subject.siteA, userId: 'user-7', beforeMs: undefined, limit: 50, ...question });
      const shown = (page: TimelinePage) => (page.unknownUser ? 'unknown user' : page.events.map((listed) => [listed.anonId, listed.type, new Date(listed.tsMs).toISOString()]));

      beforeAll(async () => {
        // user-7 signs in on a laptop (p1) and on a phone (p2); the phone's later event names nobody; the laptop's
        // last event comes from a crawler's user agent. p3 is someone else; user-7 on site B is another person.
        await subject.store(subject.siteA, [
          event(subject.siteA, 'p1', `${day}T09:00:00.000Z`, 'login', '/login', { user_id: 'user-7' }),
          event(subject.siteA, 'p2', `${day}T09:10:00.000Z`, 'login', '/login', { user_id: 'user-7', context: { user_agent: iphone } }),
          event(subject.siteA, 'p2', `${day}T09:20:00.000Z`, 'pageview', '/pricing', { context: { user_agent: iphone } }),
          event(subject.siteA, 'p3', `${day}T09:25:00.000Z`, 'pageview', '/', { user_id: 'user-8' }),
          event(subject.siteA, 'p1', `${day}T09:30:00.000Z`, 'pageview', '/', { context: { user_agent: googlebot } }),
          event(subject.siteA, 'p1', `${day}T09:40:00.000Z`, 'pageview', '/a'),
          event(subject.siteA, 'p2', `${day}T09:40:00.000Z`, 'pageview', '/b', { context: { user_agent: iphone } }),
        ]);
        await subject.store(subject.siteB, [event(subject.siteB, 'p9', `${day}T09:00:00.000Z`, 'login', '/login', { user_id: 'user-9' })]);
      });

      it('merges every device bound to the user, newest first, bots and events naming nobody included', async () => {
        const page = await timelineOf({});
        expect(shown(page)).toEqual([
          // One millisecond: the later stored first.
          ['p2', 'pageview', `${day}T09:40:00.000Z`],
          ['p1', 'pageview', `${day}T09:40:00.000Z`],
          ['p1', 'pageview', `${day}T09:30:00.000Z`],
          ['p2', 'pageview', `${day}T09:20:00.000Z`],
          ['p2', 'login', `${day}T09:10:00.000Z`],
          ['p1', 'login', `${day}T09:00:00.000Z`],
        ]);
        expect(page.unknownUser === false && page.nextBeforeMs).toBe(null);
        if (page.unknownUser) return;
        expect(page.events[0]).toMatchObject({ deviceType: 'mobile', os: 'iOS' });
        expect(page.events[4]).toMatchObject({ deviceType: 'mobile' });
        expect(JSON.parse(page.events[3]!.raw)).toMatchObject({ url: 'https://shop.example/pricing' });
      });

      it('pages by time without splitting a millisecond, and gives a crowded millisecond whole', async () => {
        const first = await timelineOf({ limit: 3 });
        // The fourth (09:20) shares no millisecond with the third: the page ends after three.
        expect(shown(first)).toEqual([
          ['p2', 'pageview', `${day}T09:40:00.000Z`],
          ['p1', 'pageview', `${day}T09:40:00.000Z`],
          ['p1', 'pageview', `${day}T09:30:00.000Z`],
        ]);
        expect(first.unknownUser === false && first.nextBeforeMs).toBe(Date.parse(`${day}T09:30:00.000Z`));
        const second = await timelineOf({ limit: 3, beforeMs: Date.parse(`${day}T09:30:00.000Z`) });
        expect(shown(second)).toEqual([
          ['p2', 'pageview', `${day}T09:20:00.000Z`],
          ['p2', 'login', `${day}T09:10:00.000Z`],
          ['p1', 'login', `${day}T09:00:00.000Z`],
        ]);
        expect(second.unknownUser === false && second.nextBeforeMs).toBe(null);
        // limit 1: the newest millisecond holds two events, so the page is that whole millisecond.
        const crowded = await timelineOf({ limit: 1 });
        expect(shown(crowded)).toEqual([
          ['p2', 'pageview', `${day}T09:40:00.000Z`],
          ['p1', 'pageview', `${day}T09:40:00.000Z`],
        ]);
        expect(crowded.unknownUser === false && crowded.nextBeforeMs).toBe(Date.parse(`${day}T09:40:00.000Z`));
        // limit 2: the two events of 09:40 make the page; the next one asks before 09:40.
        const cut = await timelineOf({ limit: 2 });
        expect(shown(cut)).toHaveLength(2);
        expect(cut.unknownUser === false && cut.nextBeforeMs).toBe(Date.parse(`${day}T09:40:00.000Z`));
      });

      it('does not know a user no event named on the site, even one known on another site', async () => {
        expect(await timelineOf({ userId: 'nobody' })).toEqual({ unknownUser: true });
        expect(await timelineOf({ userId: 'user-9' })).toEqual({ unknownUser: true });
        expect(shown(await timelineOf({ siteId: subject.siteB, userId: 'user-9' }))).toEqual([['p9', 'login', `${day}T09:00:00.000Z`]]);
        expect(await timelineOf({ siteId: subject.siteB })).toEqual({ unknownUser: true });
      });
    });

    const storedFixture = (): ContractFixture => ({ subject, range, event, purchaseId });
    if (families.includes('funnel')) describeFunnelQuestions(storedFixture);
    if (families.includes('attribution')) describeAttributionQuestions(storedFixture);
    if (families.includes('behaviour')) describeBehaviourQuestions(storedFixture);
    if (families.includes('goal')) describeGoalQuestions(storedFixture);
    if (families.includes('engagement')) describeEngagementQuestions(storedFixture);
  });
}
