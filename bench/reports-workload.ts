// The benchmarks' generator: a year and more of a busy site's traffic (skewed paths, referrers, countries;
// returning visitors; a little late, internal and bot traffic) written through the real write path (enrichment's
// output → storeGroup on the event log, as the writer thread commits it), and the projector run over it until it
// has caught up, as the projector thread does (projectAll). With `analysis`, some visits also go through a signup
// and purchase funnel and some visitors log in on two devices (the analysis benchmark); without it, the events are
// exactly those of the reports benchmark. Bundled by the benchmarks with esbuild; deterministic for a given seed.
import { randomUUID } from 'node:crypto';
import { openDatabase, openEventLog, type Db } from '../src/db/open.ts';
import type { StoredEventInput } from '../src/event-store/stored-event.ts';
import { enrichEvent } from '../src/ingest/enrich.ts';
import { EventDedup } from '../src/ingest/event-dedup.ts';
import { storeGroup, type WriteBatch } from '../src/ingest/store-group.ts';
import { batchSubscribers } from '../src/batch-subscribers.ts';
import type { BatchSubscriber } from '../src/projector/project-batch.ts';
import { writeVisitSequences } from '../src/projector/visit-sequences.ts';
import { projectBatch } from '../src/projector/project-batch.ts';
import { nextBatchSize } from '../src/projector/projector-loop.ts';

export interface WorkloadOptions {
  databasePath: string;
  siteId: string;
  events: number;
  days: number;
  paths: number;
  referrers: number;
  countries: number;
  visitors: number;
  /** The last day of traffic (epoch ms of its midnight, UTC). */
  lastDayMs: number;
  seed?: number;
  /** Events per group commit (default 2,000). */
  commitSize?: number;
  /**
   * Adds funnel-able custom events (a /pricing view, signup_started, signup_completed, purchase with revenue in EUR,
   * USD or JPY) and users with a user_id on two devices. Drawn from a random stream of their own, so without this
   * option the data set is exactly the reports benchmark's.
   */
  analysis?: boolean;
  /** Visits on days drawn at random instead of day after day (a year of history loaded at once). */
  spread?: boolean;
  onProgress?: (written: number, elapsedMs: number) => void;
}

/** mulberry32: small, fast and good enough for workloads (and for tests that must replay a failure). */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Picks 0..n-1 with probability ∝ 1/(i+1)^exponent. */
function zipf(n: number, exponent: number, random: () => number): () => number {
  const cumulative = new Float64Array(n);
  let total = 0;
  for (let index = 0; index < n; index++) cumulative[index] = total += 1 / Math.pow(index + 1, exponent);
  return () => {
    const target = random() * total;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const middle = (lo + hi) >>> 1;
      if (cumulative[middle]! < target) lo = middle + 1;
      else hi = middle;
    }
    return lo;
  };
}

const agents = [
  { browser: 'Chrome', os: 'Windows', device_type: 'desktop', is_bot: false },
  { browser: 'Chrome', os: 'Android', device_type: 'mobile', is_bot: false },
  { browser: 'Mobile Safari', os: 'iOS', device_type: 'mobile', is_bot: false },
  { browser: 'Safari', os: 'Mac OS', device_type: 'desktop', is_bot: false },
  { browser: 'Firefox', os: 'Linux', device_type: 'desktop', is_bot: false },
  { browser: 'Edge', os: 'Windows', device_type: 'desktop', is_bot: false },
  { browser: 'Mobile Safari', os: 'iOS', device_type: 'tablet', is_bot: false },
] as const;
const botAgent = { browser: 'Googlebot', os: null, device_type: 'other', is_bot: true } as const;
const minute = 60_000;

interface Visitor {
  anonId: string;
  agent: number;
  country: number;
  internal: boolean;
  /** analysis only: the user_id of a visitor who has an account, and the anon_id of its phone when it has one. */
  userId?: string;
  phoneAnonId?: string;
}

/** analysis: the chances along the funnel, per visit (the signup is likelier on a desktop, so correlation finds it). */
const funnelRates = { pricing: 0.06, started: 0.5, completedDesktop: 0.7, completedOther: 0.45, purchased: 0.4 };
const funnelPrices = [
  { currency: 'EUR', amount: '29.00', minor: 2900, share: 0.6 },
  { currency: 'USD', amount: '49.99', minor: 4999, share: 0.3 },
  { currency: 'JPY', amount: '4900', minor: 4900, share: 0.1 },
] as const;
const phoneAgent = 2; // Mobile Safari on iOS

/** analysis: what one funnel visit adds after its pageviews, each step with the chance it happens. */
function funnelSteps(desktop: boolean, extra: () => number): { type: string; path: string; price?: (typeof funnelPrices)[number]; plan?: string }[] {
  const steps: { type: string; path: string; price?: (typeof funnelPrices)[number]; plan?: string }[] = [{ type: 'pageview', path: '/pricing' }];
  if (extra() >= funnelRates.started) return steps;
  const plan = extra() < 0.7 ? 'starter' : 'pro';
  steps.push({ type: 'signup_started', path: '/signup', plan });
  if (extra() >= (desktop ? funnelRates.completedDesktop : funnelRates.completedOther)) return steps;
  steps.push({ type: 'signup_completed', path: '/signup/done', plan });
  if (extra() >= funnelRates.purchased) return steps;
  const roll = extra();
  const price = roll < funnelPrices[0].share ? funnelPrices[0] : roll < funnelPrices[0].share + funnelPrices[1].share ? funnelPrices[1] : funnelPrices[2];
  steps.push({ type: 'purchase', path: '/checkout/done', price, plan });
  return steps;
}

/** Generates and stores the events (nothing derived); returns how long storing took and each commit's duration. */
export function writeWorkload(options: WorkloadOptions): { elapsedMs: number; commitMs: number[] } {
  const random = seeded(options.seed ?? 42);
  const pickPath = zipf(options.paths, 1.1, random);
  const pickReferrer = zipf(options.referrers, 1.0, random);
  const pickCountry = zipf(options.countries, 1.2, random);
  const pickVisitor = zipf(options.visitors, 0.6, random);
  const visitors: Visitor[] = Array.from({ length: options.visitors }, (_, index) => ({
    anonId: `v${index.toString(36)}-${Math.floor(random() * 1e9).toString(36)}`,
    agent: Math.floor(random() * agents.length),
    country: pickCountry(),
    internal: random() < 0.01,
  }));
  // The analysis events draw from their own stream: the reports benchmark's events stay the same without them.
  const extra = seeded((options.seed ?? 42) ^ 0x5eed);
  if (options.analysis) {
    visitors.forEach((visitor, index) => {
      if (extra() >= 0.08) return;
      visitor.userId = `user-${index.toString(36)}`;
      if (extra() < 0.3) visitor.phoneAnonId = `${visitor.anonId}-phone`;
    });
  }
  const countries = Array.from({ length: options.countries }, (_, index) => String.fromCharCode(65 + (index % 26), 65 + Math.floor(index / 26)));
  // The schema first (sightline.db applies it to both files), then the event log alone, as the writer opens it.
  openDatabase(options.databasePath).close();
  const db: Db = openEventLog(options.databasePath);
  db.pragma('wal_autocheckpoint = 10000');
  const dedup = EventDedup.open(db, options.databasePath);
  const eventsPerDay = options.events / options.days;
  const firstDayMs = options.lastDayMs - (options.days - 1) * 86_400_000;
  const commitMs: number[] = [];
  const started = performance.now();
  let written = 0;
  let late: StoredEventInput[] = [];

  const commit = (events: StoredEventInput[]) => {
    const batches: WriteBatch[] = [];
    for (let offset = 0; offset < events.length; offset += 500) batches.push({ events: events.slice(offset, offset + 500), quarantined: [] });
    const before = performance.now();
    storeGroup(db, dedup, batches, Date.now());
    commitMs.push(performance.now() - before);
    written += events.length;
    options.onProgress?.(written, performance.now() - started);
  };

  const store = (wire: { id: string }, tsMs: number, revenueMinor: number | null, agent: (typeof agents)[number] | typeof botAgent, visitor: Visitor) =>
    enrichEvent({
      siteId: options.siteId,
      event: wire as never,
      canonicalId: wire.id,
      tsMs,
      revenueMinor,
      raw: JSON.stringify(wire),
      visitor: { agent: agent as never, geo: { country: countries[visitor.country]!, region: null, city: null }, internal: visitor.internal },
    });

  /** One visit (and, with `analysis`, its funnel) on the day starting at dayMs, pushed to `events` up to `target`. */
  const addVisit = (dayMs: number, events: StoredEventInput[], target: number) => {
    const visitor = visitors[pickVisitor()]!;
    // analysis: a user with a phone visits from it 40% of the time, logged in; on its first device 70% of its visits are.
    const onPhone = options.analysis === true && visitor.phoneAnonId !== undefined && extra() < 0.4;
    const anonId = onPhone ? visitor.phoneAnonId! : visitor.anonId;
    const userId = options.analysis && visitor.userId !== undefined && (onPhone || extra() < 0.7) ? visitor.userId : undefined;
    const agent = random() < 0.02 ? botAgent : agents[onPhone ? phoneAgent : visitor.agent]!;
    const referrer = random() < 0.4 ? null : `https://ref${pickReferrer()}.example/some/page`;
    const campaign = random() < 0.1 ? `utm_source=news&utm_medium=email&utm_campaign=c${Math.floor(random() * 20)}` : null;
    let ts = dayMs + Math.floor(random() * (86_400_000 - 3 * 3_600_000));
    const length = 1 + Math.floor(-Math.log(1 - random()) * 4);
    for (let step = 0; step < length && events.length < target; step++) {
      const path = `/p/${pickPath()}`;
      const url = `https://site.example${path}${step === 0 && campaign ? `?${campaign}` : ''}`;
      const purchase = step > 0 && random() < 0.01;
      const wire = {
        id: randomUUID(),
        site_id: options.siteId,
        anon_id: anonId,
        ...(userId ? { user_id: userId } : {}),
        ts: new Date(ts).toISOString(),
        type: purchase ? 'purchase' : 'pageview',
        url,
        referrer: step === 0 ? referrer : `https://site.example/p/${pickPath()}`,
        ...(purchase ? { revenue: { amount: '19.99', currency: 'EUR' } } : {}),
      };
      events.push(store(wire, ts, purchase ? 1999 : null, agent, visitor));
      ts += Math.floor(10_000 + random() * 4 * minute);
    }
    if (!options.analysis || agent.is_bot || extra() >= funnelRates.pricing) return;
    for (const step of funnelSteps(agent.device_type === 'desktop', extra)) {
      if (events.length >= target) break;
      const wire = {
        id: randomUUID(),
        site_id: options.siteId,
        anon_id: anonId,
        // Completing the signup logs the visitor in: a user_id from then on (its account's, or a new one's).
        ...(userId || step.type === 'signup_completed' || step.type === 'purchase' ? { user_id: userId ?? visitor.userId ?? `user-${visitor.anonId}` } : {}),
        ts: new Date(ts).toISOString(),
        type: step.type,
        url: `https://site.example${step.path}`,
        referrer: null,
        ...(step.plan ? { props: { plan: step.plan } } : {}),
        ...(step.price ? { revenue: { amount: step.price.amount, currency: step.price.currency } } : {}),
      };
      events.push(store(wire, ts, step.price?.minor ?? null, agent, visitor));
      ts += Math.floor(20_000 + extra() * 3 * minute);
    }
  };

  if (options.spread) {
    // History as an import sends it: each visit on a day drawn at random, so every commit (and every projector
    // batch) touches hundreds of days, most dimension values and many visitors.
    const size = options.commitSize ?? 2000;
    while (written < options.events) {
      const events: StoredEventInput[] = [];
      const target = Math.min(size, options.events - written);
      while (events.length < target) addVisit(firstDayMs + Math.floor(random() * options.days) * 86_400_000, events, target);
      commit(events);
    }
    dedup.close();
    db.close();
    return { elapsedMs: performance.now() - started, commitMs };
  }

  for (let day = 0; day < options.days && written < options.events; day++) {
    const dayMs = firstDayMs + day * 86_400_000;
    const events: StoredEventInput[] = [];
    const target = Math.min(options.events - written - late.length, Math.round(eventsPerDay * (0.85 + 0.3 * random())));
    while (events.length < target) addVisit(dayMs, events, target);
    events.sort((a, b) => a.ts - b.ts);
    // About 1% arrives a day late, out of order with the next day's traffic.
    const onTime: StoredEventInput[] = [...late];
    late = [];
    for (const event of events) (random() < 0.01 ? late : onTime).push(event);
    const size = options.commitSize ?? 2000;
    for (let offset = 0; offset < onTime.length; offset += size) commit(onTime.slice(offset, offset + size));
  }
  if (late.length > 0) commit(late);
  dedup.close();
  db.close();
  return { elapsedMs: performance.now() - started, commitMs };
}

/**
 * Runs the projector over everything stored, in batches of `batchEvents` and more while the backlog lasts (as the
 * projector thread does), until it has caught up; returns how long it took, how many events it read and each batch's duration.
 */
export function projectAll(
  databasePath: string,
  batchEvents = 5000,
  onProgress?: (events: number, elapsedMs: number) => void,
  cacheMiB?: number,
  /** Leave out visit_sequences' subscriber (bench/behaviour.mjs --projector-cost: what it costs the projector). */
  withoutVisitSequences = false,
): { elapsedMs: number; cpuMs: number; events: number; batchMs: number[] } {
  const db = openDatabase(databasePath, cacheMiB === undefined ? {} : { cacheMiB });
  const subscribers: readonly BatchSubscriber[] = withoutVisitSequences ? batchSubscribers.filter((subscriber) => subscriber !== writeVisitSequences) : batchSubscribers;
  db.pragma('wal_autocheckpoint = 10000');
  const started = performance.now();
  // CPU time too: on a shared 2-core machine it moves far less than the elapsed time.
  const cpuBefore = process.cpuUsage();
  const batchMs: number[] = [];
  let events = 0;
  let size = batchEvents;
  for (;;) {
    const before = performance.now();
    // With the app's subscribers, as the projector thread runs them (visit_sequences among them).
    const batch = projectBatch(db, { maxEvents: size, now: Date.now(), subscribers });
    if (batch.events === 0) break;
    batchMs.push(performance.now() - before);
    // Sized as the projector thread sizes them (projector-loop.ts): larger while the backlog lasts.
    size = nextBatchSize(size, batch.events === size, batchMs.at(-1)!, batchEvents);
    events += batch.events;
    onProgress?.(events, performance.now() - started);
  }
  db.close();
  const cpu = process.cpuUsage(cpuBefore);
  return { elapsedMs: performance.now() - started, cpuMs: (cpu.user + cpu.system) / 1000, events, batchMs };
}
