// Reads whose lists grow with the data stay within ClickHouse's bound on a statement's size: the test server's
// max_ast_elements is lowered from 50,000 to 500, so a list of more than ~500 values or ~125 (site, anon_id) pairs
// written as literals is refused ("AST is too big"), as the 30-day last_touch attribution was at 20M events
// (docs/clickhouse.md). Over 600 purchasers (some bound to users, users with several devices) and a user on 520
// devices: the shipper's batch of every event (its visitors are one list), the attribution answer whole and paged,
// the funnel attempts of everyone at a transition (correlation's question), the user's timeline and GDPR export over
// ClickHouse equal the SQLite implementation's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClickHouse, type ClickHouse } from '../../src/clickhouse/client.ts';
import { shippedSubjectEvents } from '../../src/clickhouse/subject-events.ts';
import { pendingDeletionsOf } from '../../src/clickhouse/deletions.ts';
import { applyClickHouseSchema } from '../../src/clickhouse/schema.ts';
import { createShipper } from '../../src/clickhouse/shipper.ts';
import { createClickHouseReadModel } from '../../src/read-model/clickhouse/clickhouse-read-model.ts';
import type { ReadModel } from '../../src/read-model/read-model.ts';
import type { ReadScope } from '../../src/read-model/questions.ts';
import { dayOf } from '../../src/vocabulary/periods.ts';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { startClickHouse, startClickHouseCluster } from './_server.ts';

const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const minute = 60_000;
const base = Date.parse('2026-03-02T06:00:00.000Z');
const purchasers = 600;
const devices = 520;
/** Statements of more elements are refused: about 500 values, or 125 pairs, inlined. */
const maxAstElements = 500;
const referrers = ['https://www.google.com/search?q=x', 'https://news.ycombinator.com/', undefined];

/** Each purchaser: a visit from a referrer, a second visit days later (every third), a signup naming a user shared by 15 purchasers (every fifth), a purchase. */
function stream(): Record<string, unknown>[] {
  const events: Record<string, unknown>[] = [];
  let counter = 0;
  const event = (anon: string, at: number, fields: Record<string, unknown>) =>
    events.push({ id: `00000000-0000-4000-e000-${String(++counter).padStart(12, '0')}`, site_id: 'big', anon_id: anon, ts: new Date(at).toISOString(), context: { user_agent: chrome }, ...fields });
  for (let index = 0; index < purchasers; index++) {
    const anon = `buyer-${index}`;
    const at = base + index * 7 * minute;
    const referrer = referrers[index % referrers.length];
    event(anon, at, { type: 'pageview', url: `https://shop.example/p${index % 7}`, ...(referrer ? { referrer } : {}) });
    if (index % 3 === 0) event(anon, at + 2 * 86_400_000, { type: 'pageview', url: 'https://shop.example/?utm_source=mail&utm_campaign=spring' });
    if (index % 5 === 0) event(anon, at + 2 * 86_400_000 + minute, { type: 'signup', url: 'https://shop.example/signup', user_id: `user-${index % 40}` });
    event(anon, at + 2 * 86_400_000 + 5 * minute, { type: 'purchase', url: 'https://shop.example/checkout', revenue: { amount: '9.90', currency: 'EUR' } });
  }
  // One user on as many devices: a timeline reads them all.
  for (let index = 0; index < devices; index++) event(`device-${index}`, base + index * 3 * minute, { type: 'signup', url: 'https://shop.example/signup', user_id: 'many-devices' });
  return events;
}

/** An answer without its freshness (positions and times legitimately differ). */
function figuresOf(answer: object): unknown {
  const { freshness: _freshness, ...figures } = answer as { freshness: unknown };
  return JSON.parse(JSON.stringify(figures));
}

/** A single node, and a two-shard cluster (the tables travel from the entry node to both shards). */
const targets: [string, () => Promise<{ url: string; cluster?: string; close(): Promise<void> }>][] = [
  ['a single node', async () => startClickHouse({ profile: { max_ast_elements: maxAstElements } })],
  [
    'a two-shard cluster',
    async () => {
      const cluster = await startClickHouseCluster({ profile: { max_ast_elements: maxAstElements } });
      return { url: cluster.shards[0].url, cluster: cluster.name, close: () => cluster.close() };
    },
  ],
];

describe.each(targets)(`reads with lists that grow with the data, on %s bounded to ${maxAstElements} AST elements`, (_name, startTarget) => {
  let server: TestServer;
  let clickhouseServer: Awaited<ReturnType<typeof startTarget>>;
  let overClickHouse: ReadModel;
  let clickhouse: ClickHouse;
  let scope: ReadScope;

  beforeAll(async () => {
    [server, clickhouseServer] = await Promise.all([startTestServer({ clock: manualClock('2026-03-20T12:00:00.000Z') }), startTarget()]);
    const workspace = await seedWorkspace(server, 'big', { sites: ['big'] });
    scope = { siteIds: ['big'], workspaceId: workspace.id };
    const events = stream();
    for (let offset = 0; offset < events.length; offset += 100) {
      const response = await server.request('POST', '/s2s/events', { token: 'big', body: events.slice(offset, offset + 100) });
      expect(response.status, response.text).toBe(202);
    }
    await server.projected();
    clickhouse = createClickHouse({ url: clickhouseServer.url, database: 'large_lists', timeoutMs: 30_000, cluster: clickhouseServer.cluster });
    await applyClickHouseSchema(clickhouse);
    // One batch for the whole log: its visitors (over 1,000) are one list too.
    const shipper = createShipper({ db: server.db, clickhouse, batchSize: 5000 });
    await shipper.shipAll();
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
  }, 180_000);
  afterAll(async () => {
    await server?.close();
    await clickhouseServer?.close();
  });

  it('attribution: 600 purchasers, their people and visits, whole and paged, equal SQLite', async () => {
    const lookbackMs = 30 * 86_400_000;
    const whole = { startMs: Date.parse('2026-03-01T00:00:00.000Z'), endMs: Date.parse('2026-03-20T00:00:00.000Z'), eventId: null };
    const first = await overClickHouse.conversions({ scope, ranges: [whole], lookbackMs });
    const conversions = first.ranges[0]!.conversions;
    expect(conversions).toHaveLength(purchasers);
    const middle = conversions[purchasers / 2]!;
    const question = {
      scope,
      lookbackMs,
      asOf: first.asOf,
      ranges: [whole, { ...whole, page: { after: null, limit: 550 } }, { ...whole, page: { after: { ts: middle.ts, seq: middle.seq }, limit: 1000 } }],
    };
    const expected = figuresOf(await server.app.readModel.conversions(question)) as { ranges: { conversions: { touchpoints: unknown[]; userId: string | null }[] }[] };
    expect(figuresOf(await overClickHouse.conversions(question))).toEqual(expected);
    // Not a trivial answer: people bound to users, and journeys of several visits (a user's other devices' included).
    const all = expected.ranges[0]!.conversions;
    expect(all.filter((conversion) => conversion.userId !== null).length).toBe(purchasers / 5);
    expect(all.some((conversion) => conversion.touchpoints.length > 2)).toBe(true);
  }, 300_000);

  it('funnel attempts: the context, types between and next event of 600 people (correlation asks about everyone at a transition), equal SQLite', async () => {
    const step = (type: string) => ({ type, path: null, prefix: false, props: null });
    const population = await server.app.readModel.funnelPopulation({
      scope,
      range: { fromDay: dayOf(Date.parse('2026-03-02T00:00:00.000Z')), toDay: dayOf(Date.parse('2026-03-19T00:00:00.000Z')) },
      filters: {},
      withInternal: false,
      steps: [step('pageview'), step('purchase')],
      afterRangeMs: 0,
      breakdown: null,
      maxEvents: 100_000,
      withSeqs: true,
    });
    const { people, events } = population;
    expect(people.keys.length).toBeGreaterThan(450);
    const attempts = people.keys.map((key, index) => {
      const first = people.order[people.offsets[index]!]!;
      const at = { ts: events.ts[first]!, seq: events.seqs![first]! };
      return { person: { key, visitors: people.visitors[index]! }, contextOf: at, typesBetween: { after: at, until: { ts: at.ts + 3 * 86_400_000 } }, nextAfter: at };
    });
    const question = { scope, asOf: population.asOf, withInternal: false, endMs: Date.parse('2026-03-20T00:00:00.000Z'), unnumbered: people.unnumbered, attempts };
    // The types are a set (correlation counts each once); their order is each store's (per device in SQLite, by time
    // across devices in ClickHouse), so they are compared sorted.
    const withSortedTypes = (answer: object) => {
      const figures = figuresOf(answer) as { attempts: { types?: string[]; next?: unknown }[] };
      for (const attempt of figures.attempts) attempt.types?.sort();
      return figures;
    };
    const expected = withSortedTypes(await server.app.readModel.attempts(question));
    expect(withSortedTypes(await overClickHouse.attempts(question))).toEqual(expected);
    // People bound to a user ask about all their devices; the spans hold purchases and signups.
    expect(people.keys.filter((key) => key.startsWith('u:')).length).toBeGreaterThan(5);
    expect(expected.attempts.filter((attempt) => attempt.types?.includes('purchase')).length).toBeGreaterThan(400);
  }, 300_000);

  it(`timeline: a user on ${devices} devices, page by page, equal SQLite`, async () => {
    let beforeMs: number | undefined;
    let events = 0;
    for (let page = 0; page < 10; page++) {
      const question = { siteId: 'big', userId: 'many-devices', beforeMs, limit: 200 };
      const expected = await server.app.readModel.timeline(question);
      expect(await overClickHouse.timeline(question), `page ${page}`).toEqual(expected);
      if (expected.unknownUser) throw new Error('the user is unknown');
      events += expected.events.length;
      if (expected.nextBeforeMs === null) break;
      beforeMs = expected.nextBeforeMs;
    }
    expect(events).toBe(devices);
  }, 300_000);

  it(`GDPR export: the shipped events of a subject on ${devices} devices, as the log holds them`, async () => {
    const anonIds = Array.from({ length: devices }, (_, index) => `device-${index}`);
    const shipped = await shippedSubjectEvents(clickhouse, server.db)('big', anonIds, 10_000);
    const logged = server.db.prepare(`SELECT id FROM events WHERE site_id = 'big' AND anon_id IN (SELECT value FROM json_each(?)) ORDER BY ts, seq`).pluck().all(JSON.stringify(anonIds));
    expect(logged).toHaveLength(devices);
    expect(shipped.map((row) => row.id)).toEqual(logged);
  }, 300_000);
});
