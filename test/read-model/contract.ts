// The read model's contract: what every implementation (SQLite today, ClickHouse next) must answer for one fixed
// set of stored events, figure for figure, computed by hand below. An implementation's test file calls
// describeReadModelContract with a way to start it over a fresh store; the cases never look beneath the interface.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReadModel } from '../../src/read-model/read-model.ts';
import type { ReadScope, Selection } from '../../src/read-model/questions.ts';
import type { Figures } from '../../src/read-model/report-questions.ts';
import { dayOf } from '../../src/vocabulary/periods.ts';
import { describeAttributionQuestions } from './attribution-contract.ts';
import { describeFunnelQuestions } from './funnel-contract.ts';

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
function pick<Picked extends Figures>(figures: Picked, names: (keyof Picked)[]): Partial<Picked> {
  return Object.fromEntries(names.map((name) => [name, figures[name]])) as Partial<Picked>;
}

export function describeReadModelContract(implementation: string, start: () => Promise<ReadModelUnderTest>): void {
  describe(`read model contract: ${implementation}`, () => {
    let subject: ReadModelUnderTest;
    let siteAOnly: ReadScope;
    let bothSites: ReadScope;
    const selection = (scope: ReadScope, extra: Partial<Selection> = {}): Selection => ({ scope, range, filters: {}, withInternal: false, ...extra });

    let purchaseId = '';

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

    describe('report questions', () => {
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

      it('ranks sources by visits (a visit takes its first event\'s source) and filters by one', async () => {
        const answer = await subject.readModel.ranking({ ...selection(siteAOnly), by: 'source', order: 'visits', offset: 0, limit: 10 });
        expect(answer.rows.map((row) => ({ key: row.key, ...pick(row.figures, ['visitors', 'visits', 'bounces']) }))).toEqual([
          { key: 'direct', visitors: 2, visits: 2, bounces: 2 },
          { key: 'google.com', visitors: 1, visits: 1, bounces: 0 },
        ]);
        const filtered = await subject.readModel.summary({ ...selection(siteAOnly, { filters: { source: ['google.com'] } }), visitors: true });
        expect(pick(filtered.total, ['visitors', 'visits', 'pageviews', 'events'])).toEqual({ visitors: 1, visits: 1, pageviews: 2, events: 3 });
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

    const storedFixture = (): ContractFixture => ({ subject, range, event, purchaseId });
    describeFunnelQuestions(storedFixture);
    describeAttributionQuestions(storedFixture);
  });
}
