// The reference for the differential tests: every report computed the slowest, plainest way, straight from the
// raw events table (visits cut where a visitor's gap reaches 30 minutes), with the documented semantics
// (docs/reports.md). Deliberately shares no code with src/reports. Not a test file itself.
import type { Db } from '../../src/db/open.ts';

export interface NaiveFilters {
  source?: string[];
  device?: string[];
  browser?: string[];
  os?: string[];
  country?: string[];
  region?: string[];
  city?: string[];
  path?: string[];
}

export interface NaiveQuery {
  siteIds: string[];
  from: string;
  to: string;
  filters?: NaiveFilters;
  withInternal?: boolean;
  /** Only events stored up to this seq. */
  maxSeq?: number;
}

interface Row {
  seq: number;
  site_id: string;
  anon_id: string;
  is_internal: number;
  ts: number;
  type: string;
  path: string | null;
  query: string | null;
  source: string;
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  device_type: string | null;
  browser: string | null;
  os: string | null;
  country: string | null;
  region: string | null;
  city: string | null;
  revenue_minor: number | null;
  revenue_currency: string | null;
}

interface Visit {
  events: Row[];
  first: Row;
  lastPageview: Row | undefined;
}

const day = 86_400_000;
const dayText = (ts: number) => new Date(ts).toISOString().slice(0, 10);

export function naiveVisits(db: Db, query: NaiveQuery): Visit[] {
  const placeholders = query.siteIds.map(() => '?').join(',');
  const rows = db
    .prepare(`SELECT * FROM events WHERE site_id IN (${placeholders}) AND is_bot = 0 ORDER BY site_id, anon_id, is_internal, ts, seq`)
    .all(...query.siteIds) as Row[];
  const kept = rows.filter((row) => (query.withInternal || row.is_internal === 0) && row.seq <= (query.maxSeq ?? Infinity));
  const visits: Visit[] = [];
  let current: Row[] = [];
  const flush = () => {
    if (current.length === 0) return;
    const pageviews = current.filter((row) => row.type === 'pageview');
    visits.push({ events: current, first: current[0]!, lastPageview: pageviews[pageviews.length - 1] });
    current = [];
  };
  for (const row of kept) {
    const last = current[current.length - 1];
    if (last && (last.site_id !== row.site_id || last.anon_id !== row.anon_id || last.is_internal !== row.is_internal || row.ts - last.ts >= 30 * 60_000)) flush();
    current.push(row);
  }
  flush();
  return visits;
}

function inRange(query: NaiveQuery, ts: number): boolean {
  const text = dayText(ts);
  return text >= query.from && text <= query.to;
}

function visitMatches(visit: Visit, filters: NaiveFilters): boolean {
  const checks: [string[] | undefined, string | null][] = [
    [filters.source, visit.first.source],
    [filters.device, visit.first.device_type],
    [filters.browser, visit.first.browser],
    [filters.os, visit.first.os],
    [filters.country, visit.first.country],
    [filters.region, visit.first.region],
    [filters.city, visit.first.city],
  ];
  return checks.every(([wanted, value]) => !wanted || (value !== null && wanted.includes(value)));
}

function pathOk(filters: NaiveFilters, path: string | null): boolean {
  return !filters.path || (path !== null && filters.path.includes(path));
}

export function pageOf(row: Row): string | null {
  if (row.path === null) return null;
  const kept = (row.query ?? '').split('&').filter((part) => part !== '' && !part.split('=')[0]!.toLowerCase().startsWith('utm_'));
  return kept.length > 0 ? `${row.path}?${kept.join('&')}` : row.path;
}

const round4 = (a: number, b: number) => (b === 0 ? 0 : Math.round((a / b) * 10_000) / 10_000);
const seconds = (ms: number, n: number) => (n === 0 ? 0 : Math.round(ms / n / 100) / 10);

interface Tally {
  visitors: Set<string>;
  events: number;
  pageviews: number;
  visits: number;
  bounces: number;
  durationMs: number;
  visitPageviews: number;
  visitEvents: number;
  exits: number;
  conversions: number;
  revenue: Map<string, number>;
}

function tally(): Tally {
  return { visitors: new Set(), events: 0, pageviews: 0, visits: 0, bounces: 0, durationMs: 0, visitPageviews: 0, visitEvents: 0, exits: 0, conversions: 0, revenue: new Map() };
}

/**
 * Groups every counted event by `eventKey` and every counted visit by `visitKey` (entry) and `exitKey`. A page's
 * visitors are the people with a pageview of it (CONTRACT section 10): grouped by page (`byPage`) or filtered by
 * path, only a pageview makes its visitor count; other events on the path count as events only.
 */
function tallies(
  db: Db,
  query: NaiveQuery,
  eventKey: (visit: Visit, row: Row) => string | null,
  visitKey: (visit: Visit) => string | null,
  exitKey: (visit: Visit) => string | null = () => null,
  byPage = false,
): Map<string, Tally> {
  const filters = query.filters ?? {};
  const pageviewVisitorsOnly = byPage || filters.path !== undefined;
  const groups = new Map<string, Tally>();
  const of = (key: string) => groups.get(key) ?? groups.set(key, tally()).get(key)!;
  for (const visit of naiveVisits(db, query)) {
    if (!visitMatches(visit, filters)) continue;
    if (inRange(query, visit.first.ts)) {
      const key = visitKey(visit);
      if (key !== null && pathOk(filters, visit.first.path)) {
        const group = of(key);
        const pageviews = visit.events.filter((row) => row.type === 'pageview').length;
        group.visits++;
        if (pageviews === 1 && visit.events.length === 1) group.bounces++;
        group.durationMs += visit.events[visit.events.length - 1]!.ts - visit.first.ts;
        group.visitPageviews += pageviews;
        group.visitEvents += visit.events.length;
      }
      const exit = exitKey(visit);
      if (exit !== null && pathOk(filters, visit.lastPageview!.path)) of(exit).exits++;
    }
    for (const row of visit.events) {
      if (!inRange(query, row.ts) || !pathOk(filters, row.path)) continue;
      const key = eventKey(visit, row);
      if (key === null) continue;
      const group = of(key);
      if (!pageviewVisitorsOnly || row.type === 'pageview') group.visitors.add(row.anon_id);
      group.events++;
      if (row.type === 'pageview') group.pageviews++;
      if (row.type === 'purchase') group.conversions++;
      if (row.revenue_minor !== null && row.revenue_currency !== null) {
        group.revenue.set(row.revenue_currency, (group.revenue.get(row.revenue_currency) ?? 0) + row.revenue_minor);
      }
    }
  }
  return groups;
}

function datesOf(query: NaiveQuery): string[] {
  const dates: string[] = [];
  for (let ts = Date.parse(`${query.from}T00:00:00Z`); dayText(ts) <= query.to; ts += day) dates.push(dayText(ts));
  return dates;
}

/** The ISO hours of a one-day range (summary-v2's default series for one day, CONTRACT section 10). */
function hoursOf(query: NaiveQuery): string[] {
  return Array.from({ length: 24 }, (_, hour) => `${query.from}T${String(hour).padStart(2, '0')}:00:00Z`);
}
const hourText = (ts: number) => `${new Date(ts).toISOString().slice(0, 13)}:00:00Z`;

export function naiveSummary(db: Db, query: NaiveQuery) {
  const whole = tallies(db, query, () => '', () => '').get('') ?? tally();
  const hourly = query.from === query.to;
  const pointOf = hourly ? hourText : dayText;
  const byDay = tallies(db, query, (_visit, row) => pointOf(row.ts), (visit) => pointOf(visit.first.ts));
  return {
    visitors: whole.visitors.size,
    visits: whole.visits,
    pageviews: whole.pageviews,
    events: whole.events,
    bounce_rate: round4(whole.bounces, whole.visits),
    avg_visit_duration_s: seconds(whole.durationMs, whole.visits),
    views_per_visit: round4(whole.visitPageviews, whole.visits),
    series: (hourly ? hoursOf(query) : datesOf(query)).map((date) => {
      const group = byDay.get(date) ?? tally();
      return { date, visitors: group.visitors.size, visits: group.visits, pageviews: group.pageviews };
    }),
  };
}

function ranked(groups: Map<string, Tally>, keep: (group: Tally) => boolean, rank: (group: Tally) => number): [string, Tally][] {
  return [...groups].filter(([, group]) => keep(group)).sort(([ak, a], [bk, b]) => rank(b) - rank(a) || (ak < bk ? -1 : ak > bk ? 1 : 0));
}

export function naivePages(db: Db, query: NaiveQuery, includeParams = false) {
  const keyOf = (row: Row) => (includeParams ? pageOf(row) : row.path);
  const groups = tallies(db, query, (_visit, row) => keyOf(row), (visit) => keyOf(visit.first), (visit) => (visit.lastPageview ? keyOf(visit.lastPageview) : null), true);
  return ranked(groups, (group) => group.events + group.visits + group.exits > 0, (group) => group.pageviews).map(([path, group]) => ({
    path,
    visitors: group.visitors.size,
    pageviews: group.pageviews,
    entries: group.visits,
    exits: group.exits,
  }));
}

/** keyOf: the row a stored source counts in (grouped sources name their group); the source itself by default. */
export function naiveSources(db: Db, query: NaiveQuery, keyOf: (source: string) => string = (source) => source) {
  const groups = tallies(db, query, (visit) => keyOf(visit.first.source), (visit) => keyOf(visit.first.source));
  return ranked(groups, (group) => group.events + group.visits > 0, (group) => group.visits).map(([source, group]) => ({
    source,
    visitors: group.visitors.size,
    visits: group.visits,
    pageviews: group.pageviews,
    bounce_rate: round4(group.bounces, group.visits),
  }));
}

export function naiveCampaigns(db: Db, query: NaiveQuery, formatMoney: (minor: number, currency: string) => string) {
  const keyOf = (visit: Visit) =>
    visit.first.utm_source === null && visit.first.utm_medium === null && visit.first.utm_campaign === null
      ? null
      : JSON.stringify([visit.first.utm_source, visit.first.utm_medium, visit.first.utm_campaign]);
  const groups = tallies(db, query, keyOf, keyOf);
  return ranked(groups, (group) => group.events + group.visits > 0, (group) => group.visits).map(([key, group]) => {
    const [utmSource, utmMedium, utmCampaign] = JSON.parse(key) as (string | null)[];
    return {
      utm_source: utmSource,
      utm_medium: utmMedium,
      utm_campaign: utmCampaign,
      visitors: group.visitors.size,
      visits: group.visits,
      conversions: group.conversions,
      revenue: [...group.revenue]
        .filter(([, amount]) => amount !== 0)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([currency, amount]) => ({ currency, amount: formatMoney(amount, currency) })),
    };
  });
}

export function naiveLegacyPageviews(db: Db, query: NaiveQuery) {
  const byDay = tallies(db, query, (_visit, row) => dayText(row.ts), () => null);
  const byDate = datesOf(query).map((date) => ({ date, count: byDay.get(date)?.pageviews ?? 0 }));
  return { count: byDate.reduce((sum, item) => sum + item.count, 0), by_day: byDate };
}

export function naiveLegacyEvents(db: Db, query: NaiveQuery) {
  const groups = tallies(db, query, (_visit, row) => row.type, () => null);
  return { by_name: ranked(groups, (group) => group.events > 0, (group) => group.events).map(([name, group]) => ({ name, count: group.events })) };
}

export function naiveLegacySessions(db: Db, query: NaiveQuery) {
  const whole = tallies(db, query, () => null, () => '').get('') ?? tally();
  return {
    count: whole.visits,
    avg_duration_s: seconds(whole.durationMs, whole.visits),
    avg_events: round4(whole.visitEvents, whole.visits),
    bounce_rate: round4(whole.bounces, whole.visits),
  };
}

// Journeys, page flow and retention (CONTRACT section 10, docs/reports.md), the plainest way.

/** A visit's pageview paths in time order, consecutive repeats collapsed. */
function naiveSequence(visit: Visit): string[] {
  const sequence: string[] = [];
  for (const row of visit.events) if (row.type === 'pageview' && row.path !== null && sequence[sequence.length - 1] !== row.path) sequence.push(row.path);
  return sequence;
}

/** The visits starting in the range that pass the visit filters and the path filter, as sequences (none empty). */
function naiveSequences(db: Db, query: NaiveQuery): { anonId: string; sequence: string[] }[] {
  const filters = query.filters ?? {};
  return naiveVisits(db, query)
    .filter((visit) => inRange(query, visit.first.ts) && visitMatches(visit, filters))
    .filter((visit) => !filters.path || visit.events.some((row) => row.type === 'pageview' && pathOk(filters, row.path)))
    .map((visit) => ({ anonId: visit.first.anon_id, sequence: naiveSequence(visit) }))
    .filter((visit) => visit.sequence.length > 0);
}

const textOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function naiveJourneys(db: Db, query: NaiveQuery, options: { start?: string; end?: string; steps: number; limit: number }) {
  const tallies = new Map<string, { steps: string[]; visitors: Set<string>; visits: number }>();
  for (const { anonId, sequence } of naiveSequences(db, query)) {
    let steps: string[];
    if (options.start !== undefined) {
      const at = sequence.indexOf(options.start);
      if (at < 0) continue;
      steps = sequence.slice(at, at + options.steps);
    } else if (options.end !== undefined) {
      const at = sequence.lastIndexOf(options.end);
      if (at < 0) continue;
      steps = sequence.slice(Math.max(0, at - options.steps + 1), at + 1);
    } else steps = sequence.slice(0, options.steps);
    const key = JSON.stringify(steps);
    const tally = tallies.get(key) ?? { steps, visitors: new Set<string>(), visits: 0 };
    tally.visitors.add(anonId);
    tally.visits++;
    tallies.set(key, tally);
  }
  const stepsOrder = (a: string[], b: string[]) => {
    for (let index = 0; index < a.length && index < b.length; index++) if (a[index] !== b[index]) return textOrder(a[index]!, b[index]!);
    return a.length - b.length;
  };
  return [...tallies.values()]
    .map((tally) => ({ steps: tally.steps, visitors: tally.visitors.size, visits: tally.visits }))
    .sort((a, b) => b.visits - a.visits || b.visitors - a.visitors || stepsOrder(a.steps, b.steps))
    .slice(0, options.limit);
}

export function naivePageFlow(db: Db, query: NaiveQuery, path: string, limit: number) {
  const previous = new Map<string, number>();
  const next = new Map<string, number>();
  let exits = 0;
  for (const { sequence } of naiveSequences(db, query)) {
    const before = new Set<string>();
    const after = new Set<string>();
    sequence.forEach((page, index) => {
      if (page !== path) return;
      if (index > 0) before.add(sequence[index - 1]!);
      if (index < sequence.length - 1) after.add(sequence[index + 1]!);
    });
    for (const page of before) previous.set(page, (previous.get(page) ?? 0) + 1);
    for (const page of after) next.set(page, (next.get(page) ?? 0) + 1);
    if (sequence[sequence.length - 1] === path) exits++;
  }
  const ranked = (counts: Map<string, number>) =>
    [...counts].map(([page, visits]) => ({ path: page, visits })).sort((a, b) => b.visits - a.visits || textOrder(a.path, b.path)).slice(0, limit);
  return { previous: ranked(previous), next: ranked(next), exits };
}

/** The first day (YYYY-MM-DD) of the ISO week or the month of a day. */
function periodStart(text: string, period: 'week' | 'month'): string {
  if (period === 'month') return `${text.slice(0, 7)}-01`;
  const date = new Date(`${text}T00:00:00Z`);
  const sinceMonday = (date.getUTCDay() + 6) % 7;
  return dayText(date.getTime() - sinceMonday * day);
}

export function naiveRetention(db: Db, query: NaiveQuery, period: 'week' | 'month') {
  const placeholders = query.siteIds.map(() => '?').join(',');
  const rows = db.prepare(`SELECT anon_id, user_id, ts, is_bot, is_internal FROM events WHERE site_id IN (${placeholders})`).all(...query.siteIds) as {
    anon_id: string;
    user_id: string | null;
    ts: number;
    is_bot: number;
    is_internal: number;
  }[];
  // Every event naming a user binds its anon_id (bots and internal traffic too); several users: the first in order.
  const userOf = new Map<string, string>();
  for (const row of rows) if (row.user_id !== null && (!userOf.has(row.anon_id) || row.user_id < userOf.get(row.anon_id)!)) userOf.set(row.anon_id, row.user_id);
  const personOf = (anonId: string) => (userOf.has(anonId) ? `user ${userOf.get(anonId)}` : `anon ${anonId}`);
  const starts: string[] = [];
  for (let text = periodStart(query.from, period); text <= query.to; ) {
    starts.push(text);
    const date = new Date(`${text}T00:00:00Z`);
    text = period === 'week' ? dayText(date.getTime() + 7 * day) : dayText(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1));
  }
  const before = new Set<string>();
  const seen = new Map<string, Set<number>>();
  for (const row of rows) {
    if (row.is_bot === 1 || (row.is_internal === 1 && !query.withInternal)) continue;
    const text = dayText(row.ts);
    if (text > query.to) continue;
    const person = personOf(row.anon_id);
    if (text < query.from) {
      before.add(person);
      continue;
    }
    const index = starts.indexOf(periodStart(text, period));
    const periods = seen.get(person) ?? new Set<number>();
    periods.add(index);
    seen.set(person, periods);
  }
  const cohorts = starts.map((start, index) => ({ start, size: 0, returning: new Array<number>(starts.length - index - 1).fill(0) }));
  for (const [person, periods] of seen) {
    if (before.has(person)) continue;
    const first = Math.min(...periods);
    cohorts[first]!.size++;
    for (const index of periods) if (index > first) cohorts[first]!.returning[index - first - 1]!++;
  }
  return cohorts;
}

/**
 * goals-v2's figures of one goal (`converts`: whether an event converts on it): the converting events in the range
 * of the visits the filters keep (the path filter on the event itself), their people and their revenue.
 */
export function naiveGoal(db: Db, query: NaiveQuery, converts: (row: { type: string; path: string | null }) => boolean) {
  const filters = query.filters ?? {};
  const people = new Set<string>();
  const revenue = new Map<string, number>();
  let conversions = 0;
  for (const visit of naiveVisits(db, query)) {
    if (!visitMatches(visit, filters)) continue;
    for (const row of visit.events) {
      if (!converts(row) || !inRange(query, row.ts) || !pathOk(filters, row.path)) continue;
      conversions++;
      people.add(row.anon_id);
      if (row.revenue_minor !== null && row.revenue_currency !== null) revenue.set(row.revenue_currency, (revenue.get(row.revenue_currency) ?? 0) + row.revenue_minor);
    }
  }
  return { visitors: people.size, conversions, revenue };
}
