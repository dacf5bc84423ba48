// Differential test: attribution credits over HTTP against a naive recomputation from the raw events that were sent
// (visits split at gaps of 30 minutes, sources from utm_source / referrer host / direct, persons merged through
// user_id, touchpoints in the 30 days before each purchase, model weights normalised in floating point).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { send } from '../events/_helpers.ts';
import { day, minute, purchase, utm, visit } from './_fixtures.ts';
import { seeded } from '../../bench/reports-workload.ts';

interface SentEvent {
  id: string;
  anon: string;
  user: string | null;
  ts: number;
  type: 'pageview' | 'purchase';
  source: string;
  medium: string | null;
  campaign: string | null;
  revenue: { minor: number; currency: string } | null;
  order: number;
}

const seed = 20261124;
const random = seeded(seed);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const start = Date.parse('2026-05-15T00:00:00.000Z');
const rangeStart = Date.parse('2026-06-01T00:00:00.000Z');
const rangeEnd = Date.parse('2026-06-30T23:59:59.999Z');
const gaps = [5 * minute, 17 * minute, 2 * 60 * minute, day, 3 * day, 9 * day];

function generate(): { wire: Record<string, unknown>[]; sent: SentEvent[] } {
  const wire: Record<string, unknown>[] = [];
  const sent: SentEvent[] = [];
  for (let a = 0; a < 60; a++) {
    const anon = `anon-${String(a).padStart(2, '0')}`;
    // Two anon_ids per user for the first 30: persons that span devices.
    const user = a < 30 ? `user-${Math.floor(a / 2)}` : null;
    let ts = start + Math.floor(random() * 40 * day);
    const count = 1 + Math.floor(random() * 7);
    for (let e = 0; e < count && ts < Date.parse('2026-06-30T23:00:00.000Z'); e++) {
      const withUser = user !== null && (e === 0 || random() < 0.3) ? user : null;
      if (random() < 0.3) {
        const currency = pick(['USD', 'JPY', 'KWD', null]);
        const revenue = currency === null ? null : { minor: 1 + Math.floor(random() * 100_000), currency };
        const amount = revenue === null ? undefined : { amount: (revenue.minor / 10 ** ({ USD: 2, JPY: 0, KWD: 3 } as Record<string, number>)[revenue.currency]!).toFixed(({ USD: 2, JPY: 0, KWD: 3 } as Record<string, number>)[revenue.currency]!), currency: revenue.currency };
        const event = purchase('shop', anon, ts, amount, withUser ?? undefined);
        wire.push(event);
        sent.push({ id: event.id as string, anon, user: withUser, ts, type: 'purchase', source: 'direct', medium: null, campaign: null, revenue, order: sent.length });
      } else {
        const kind = pick(['utm', 'utm', 'referrer', 'direct']);
        let event: Record<string, unknown>;
        let source = 'direct';
        let medium: string | null = null;
        let campaign: string | null = null;
        if (kind === 'utm') {
          [source, medium, campaign] = [pick(['google', 'bing', 'facebook']), pick(['cpc', 'social']), pick(['spring', 'summer'])];
          event = visit('shop', anon, ts, { query: utm(source, medium, campaign), user_id: withUser ?? undefined });
        } else if (kind === 'referrer') {
          source = pick(['news.example', 'blog.example']);
          event = visit('shop', anon, ts, { referrer: `https://www.${source}/post`, user_id: withUser ?? undefined });
        } else {
          event = visit('shop', anon, ts, { user_id: withUser ?? undefined });
        }
        wire.push(event);
        sent.push({ id: event.id as string, anon, user: withUser, ts, type: 'pageview', source, medium, campaign, revenue: null, order: sent.length });
      }
      ts += pick(gaps);
    }
  }
  return { wire, sent };
}

interface NaiveVisit {
  anon: string;
  start: number;
  source: string;
  medium: string | null;
  campaign: string | null;
}

function naiveVisits(sent: SentEvent[]): NaiveVisit[] {
  const visits: NaiveVisit[] = [];
  const byAnon = new Map<string, SentEvent[]>();
  for (const event of sent) byAnon.set(event.anon, [...(byAnon.get(event.anon) ?? []), event]);
  for (const events of byAnon.values()) {
    events.sort((x, y) => x.ts - y.ts || x.order - y.order);
    let last = -Infinity;
    for (const event of events) {
      if (event.ts - last >= 30 * minute) visits.push({ anon: event.anon, start: event.ts, source: event.source, medium: event.medium, campaign: event.campaign });
      last = event.ts;
    }
  }
  return visits;
}

function naiveWeights(model: string, touches: NaiveVisit[], ts: number): number[] {
  const n = touches.length;
  const only = (index: number) => touches.map((_, i) => (i === index ? 1 : 0));
  if (model === 'first_touch') return only(0);
  if (model === 'last_touch') return only(n - 1);
  if (model === 'last_non_direct') {
    const nonDirect = touches.map((touch) => touch.source !== 'direct').lastIndexOf(true);
    return only(nonDirect >= 0 ? nonDirect : n - 1);
  }
  if (model === 'linear') return touches.map(() => 1 / n);
  if (model === 'position_based') return n === 1 ? [1] : n === 2 ? [0.5, 0.5] : touches.map((_, i) => (i === 0 || i === n - 1 ? 0.4 : 0.2 / (n - 2)));
  const weights = touches.map((touch) => Math.pow(0.5, (ts - touch.start) / (7 * day)));
  const sum = weights.reduce((x, y) => x + y, 0);
  return weights.map((weight) => weight / sum);
}

let server: TestServer;
let sent: SentEvent[];

beforeAll(async () => {
  // A generous bound on the wait for the projector: no answer here depends on how fast it runs.
  server = await startTestServer({ clock: manualClock('2026-07-01T00:00:00.000Z'), projectionWaitMs: 30_000 });
  await seedWorkspace(server, 'acme', { sites: ['shop'] });
  const generated = generate();
  sent = generated.sent;
  await send(server, 'shop', generated.wire);
});
afterAll(() => server.close());

describe.each(['first_touch', 'last_touch', 'last_non_direct', 'linear', 'position_based', 'time_decay'])(`model %s (seed ${seed})`, (model) => {
  it('matches the naive recomputation for every purchase, and totals keep every unit of revenue', async () => {
    const response = await server.request('GET', `/v1/workspaces/acme/attribution/results?model=${model}&from=2026-06-01&to=2026-06-30&limit=10000`);
    expect(response.status, response.text).toBe(200);
    const visits = naiveVisits(sent);
    const userOf = new Map(sent.filter((event) => event.user).map((event) => [event.anon, event.user!]));
    const purchases = sent.filter((event) => event.type === 'purchase' && event.ts >= rangeStart && event.ts <= rangeEnd);
    expect(purchases.length).toBeGreaterThan(20);
    const answered = new Map<string, { person: string; touchpoints: { ts: string; source: string; medium: string | null; campaign: string | null; credit: number }[] }>(
      response.body.results.map((item: { conversion_id: string }) => [item.conversion_id, item]),
    );
    expect([...answered.keys()].sort()).toEqual(purchases.map((event) => event.id).sort());
    let withTouchpoints = 0;
    for (const conversion of purchases) {
      const user = conversion.user ?? userOf.get(conversion.anon) ?? null;
      const anons = new Set([conversion.anon, ...[...userOf.entries()].filter(([, bound]) => user !== null && bound === user).map(([anon]) => anon)]);
      const touches = visits
        .filter((item) => anons.has(item.anon) && item.start >= conversion.ts - 30 * day && item.start < conversion.ts)
        .sort((x, y) => x.start - y.start || (x.anon < y.anon ? -1 : 1));
      const result = answered.get(conversion.id)!;
      expect(result.person).toBe(user ? `user:${user}` : `anon:${conversion.anon}`);
      expect(result.touchpoints.map((touch) => [Date.parse(touch.ts), touch.source, touch.medium, touch.campaign])).toEqual(touches.map((touch) => [touch.start, touch.source, touch.medium, touch.campaign]));
      const weights = naiveWeights(model, touches, conversion.ts);
      result.touchpoints.forEach((touch, index) => expect(Math.abs(touch.credit - weights[index]!), `${conversion.id} #${index}`).toBeLessThanOrEqual(1e-6 + 1e-12));
      if (touches.length > 0) {
        withTouchpoints++;
        expect(result.touchpoints.reduce((sum, touch) => sum + Math.round(touch.credit * 1e6), 0)).toBe(1_000_000);
      }
    }
    expect(withTouchpoints).toBeGreaterThan(10);
    // Totals: every purchase counted once, and every minor unit of revenue credited to exactly one row.
    const totals = response.body.totals as { conversions: number; revenue: { currency: string; amount: string }[] }[];
    expect(totals.reduce((sum, row) => sum + Math.round(row.conversions * 1e6), 0)).toBe(purchases.length * 1_000_000);
    for (const currency of ['USD', 'JPY', 'KWD']) {
      const exponent = { USD: 2, JPY: 0, KWD: 3 }[currency]!;
      const expected = purchases.filter((event) => event.revenue?.currency === currency).reduce((sum, event) => sum + event.revenue!.minor, 0);
      const credited = totals.flatMap((row) => row.revenue).filter((money) => money.currency === currency).reduce((sum, money) => sum + Math.round(Number(money.amount) * 10 ** exponent), 0);
      expect(credited, currency).toBe(expected);
    }
  });
});
