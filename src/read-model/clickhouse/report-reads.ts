// The report questions answered over ClickHouse: events and the projector's visits as shipped (src/clickhouse/),
// with the figures of CONTRACT section 4 computed exactly (uniqExact visitors, every event counted once: the shipper
// stores no event twice, and visit measures are sums of the signed visit rows, so nothing is read with FINAL). The semantics are raw-grouped.ts's: visit filters select whole visits by their entry,
// the path filter selects events and, for visit measures, the entry page; events count on their day, visit measures
// on the visit's first day; a path's visitors are those with a pageview of it.
import type { ClickHouse } from '../../clickhouse/client.ts';
import { withoutDeleted } from '../../clickhouse/deletion-sql.ts';
import type { PendingDeletion } from '../../clickhouse/deletions.ts';
import { joinSql, sql, SqlText } from '../../clickhouse/sql-literal.ts';
import { campaignKey, Dim, purchaseType } from '../../vocabulary/dimensions.ts';
import { dayMs } from '../../vocabulary/periods.ts';
import { hourMs, intervalStarts, type Interval } from '../../vocabulary/periods-interval.ts';
import type { TimeQuestions } from '../time-questions.ts';
import { visitFilterColumns } from '../../vocabulary/report-filters.ts';
import type { ComputedFrom, Selection } from '../questions.ts';
import type { Figures, RankDimension, ReportQuestions } from '../report-questions.ts';
import { planRollupRead } from '../sqlite/grouped-report.ts';
import { freshnessOf, isIn, listOf, liveVisits, sqlName, visitFilterSql } from './common.ts';
import { groupedSourceSql } from './source-group-key.ts';

/** The visit columns an event's visit brings (visit filters and dimensions): with the visit's key, enough to net its rows. */
const visitSideColumns = sql`site_id, anon_id, is_internal, start_ts, end_ts, source, device_type, browser, os, country, region, city, utm_source, utm_medium, utm_campaign`;

export interface ClickHouseReadOptions {
  clickhouse: ClickHouse;
  /** Waits, bounded, until ClickHouse holds every event projected before the call; false when the wait ran out. */
  waitForShipping: () => Promise<boolean>;
  /** What reads of these sites leave out now: deletions ClickHouse has not carried out yet (clickhouse/deletions.ts). */
  deletionsOf: (siteIds: readonly string[]) => PendingDeletion[];
  /** The scope's stored sources, for a ranking of grouped sources (source-group-key.ts); without it, sources stay ungrouped. */
  knownSources?: (siteIds: readonly string[]) => Iterable<string>;
}

/** How a question groups: nothing, days, or the columns of a dimension (campaign: its three utm columns). */
type Grouping = { by: 'all' } | { by: 'day' } | { by: 'interval'; interval: Interval; fromDay: number } | { by: RankDimension; knownSources?: Iterable<string> };

/**
 * The start (epoch ms) of the interval holding a time column, as intervalStartOf computes it (periods-interval.ts):
 * UTC hours, days, ISO weeks (Monday) and calendar months, not before the range's first day.
 */
function intervalStartSql(column: string, interval: Interval, fromDay: number): SqlText {
  const ms = sqlName(column);
  const day = sql`intDiv(${ms}, ${dayMs})`;
  switch (interval) {
    case 'hour':
      return sql`intDiv(${ms}, ${hourMs}) * ${hourMs}`;
    case 'day':
      return sql`greatest(${day}, ${fromDay}) * ${dayMs}`;
    case 'week':
      // 1970-01-01 (day 0) was a Thursday: a day's Monday is day - (day + 3) % 7.
      return sql`greatest(${day} - ((${day} + 3) % 7), ${fromDay}) * ${dayMs}`;
    case 'month':
      // A Date converts to its day number.
      return sql`greatest(toUInt32(toStartOfMonth(toDateTime(intDiv(${ms}, 1000), 'UTC'))), ${fromDay}) * ${dayMs}`;
  }
}

interface GroupRow {
  parts: (string | null)[];
  [figure: string]: unknown;
}

const visitColumn: Record<string, string> = { source: 'source', device: 'device_type', browser: 'browser', os: 'os', country: 'country', region: 'region', city: 'city' };

function emptyFigures(): Figures {
  return { visitors: 0, visits: 0, pageviews: 0, events: 0, bounces: 0, durationMs: 0, visitPageviews: 0, visitEvents: 0, exits: 0, conversions: 0, revenue: new Map() };
}

/** The key columns of a grouping, for events (through their visit: v_ columns), visits and exits; null: not grouped so. */
function keyColumns(grouping: Grouping): { events: SqlText; visits: SqlText | null; exits: SqlText | null } {
  const columns = (...names: string[]) => sql`[${joinSql(names.map((name) => sql`${sqlName(name)}`), ', ')}]`;
  switch (grouping.by) {
    case 'all':
      return { events: sql`['']`, visits: sql`['']`, exits: null };
    case 'day':
      return { events: sql`[toString(intDiv(ts, ${dayMs}))]`, visits: sql`[toString(intDiv(start_ts, ${dayMs}))]`, exits: null };
    case 'interval':
      return {
        events: sql`[toString(${intervalStartSql('ts', grouping.interval, grouping.fromDay)})]`,
        visits: sql`[toString(${intervalStartSql('start_ts', grouping.interval, grouping.fromDay)})]`,
        exits: null,
      };
    case 'path':
      return { events: columns('path'), visits: columns('entry_path'), exits: columns('exit_path') };
    case 'type':
      return { events: columns('type'), visits: null, exits: null };
    case 'campaign':
      return { events: columns('v_utm_source', 'v_utm_medium', 'v_utm_campaign'), visits: columns('utm_source', 'utm_medium', 'utm_campaign'), exits: null };
    case 'page':
      return { events: sql`[${pageKey('path', 'query')}]`, visits: sql`[${pageKey('entry_path', 'entry_query')}]`, exits: sql`[${pageKey('exit_path', 'exit_query')}]` };
    case 'source':
      // Grouped sources: each stored source's group (its knownSources), the visitors of a group exact.
      if ('knownSources' in grouping && grouping.knownSources) {
        const known = [...grouping.knownSources];
        return { events: sql`[${groupedSourceSql(sql`v_source`, known)}]`, visits: sql`[${groupedSourceSql(sql`source`, known)}]`, exits: null };
      }
      return { events: columns('v_source'), visits: columns('source'), exits: null };
    default:
      return { events: columns(`v_${visitColumn[grouping.by]!}`), visits: columns(visitColumn[grouping.by]!), exits: null };
  }
}

/**
 * The page of include_params=true computed in ClickHouse as pageKeyOf (vocabulary/dimensions.ts) computes it: the path
 * and its query string without empty parts and utm_* parameters (the name before '=' compared case-insensitively).
 * Grouping by this key in SQL keeps uniqExact visitors exact across queries that name the same page.
 */
export function pageKey(pathColumn: string, queryColumn: string): SqlText {
  const path = sqlName(pathColumn);
  const kept = sql`arrayFilter(part -> part != '' AND substring(lower(splitByChar('=', part)[1]), 1, 4) != 'utm_', splitByChar('&', ifNull(${sqlName(queryColumn)}, '')))`;
  return sql`if(isNull(${path}), NULL, if(empty(${kept}), ${path}, concat(assumeNotNull(${path}), '?', arrayStringConcat(${kept}, '&'))))`;
}

function keyOf(parts: (string | null)[]): string | null {
  return parts.length === 3 ? campaignKey(parts[0]!, parts[1]!, parts[2]!) : parts[0]!;
}

export function createClickHouseReportReads({ clickhouse, waitForShipping, deletionsOf, knownSources }: ClickHouseReadOptions): Omit<ReportQuestions, 'rankings'> & Pick<TimeQuestions, 'series'> {
  /**
   * Figures by group key for a selection: events (with their visit's entry when needed), visits, exits. With
   * `withTotal`, the whole selection's figures too, under the key '' (no group of a day or an interval has it), from
   * the same pass over events and visits (each row counted in its group and in the total; visitors stay exact):
   * reading them is most of a question's cost, so a summary reads them once, not twice.
   */
  async function grouped(question: Selection, grouping: Grouping, withTotal = false): Promise<Map<string, Figures>> {
    const startMs = question.range.fromDay * dayMs;
    const endMs = (question.range.toDay + 1) * dayMs;
    const filters = question.filters;
    const deletions = deletionsOf(question.scope.siteIds);
    // Not carried over ClickHouse yet (the contract's goal family runs against SQLite only): refused, never ignored.
    if (filters.goal !== undefined) throw new Error('The goal filter is not answered over ClickHouse yet');
    const groupKeys = keyColumns(grouping);
    const andTotal = (key: SqlText | null) => (key && withTotal ? sql`arrayJoin([[''], ${key}])` : key);
    const keys = { visits: andTotal(groupKeys.visits), exits: groupKeys.exits };
    if (withTotal && keys.exits) throw new TypeError('a total is only kept beside days and intervals');
    const visitFiltered = Object.keys(visitFilterColumns).some((name) => filters[name as keyof typeof visitFilterColumns] !== undefined);
    const needsVisit = visitFiltered || !['all', 'day', 'interval', 'path', 'type'].includes(grouping.by);
    const pageviewVisitorsOnly = filters.path !== undefined || grouping.by === 'path' || grouping.by === 'page';
    const selected = sql`SELECT site_id, anon_id, is_internal, ts, type, path, query, revenue_minor, revenue_currency FROM events
      WHERE site_id IN ${listOf(question.scope.siteIds)} AND ts >= ${startMs} AND ts < ${endMs} AND is_bot = 0
        AND (is_internal = 0 OR ${question.withInternal ? 1 : 0} = 1)${isIn('path', filters.path)}${withoutDeleted(deletions, 'events')}`;
    const visitSide = sql`SELECT site_id, anon_id, is_internal, start_ts AS v_start, end_ts AS v_end, source AS v_source, device_type AS v_device_type,
        browser AS v_browser, os AS v_os, country AS v_country, region AS v_region, city AS v_city, utm_source AS v_utm_source,
        utm_medium AS v_utm_medium, utm_campaign AS v_utm_campaign FROM ${liveVisits(question, startMs, endMs, deletions, visitSideColumns)} WHERE 1 = 1${visitFilterSql(filters)}`;
    const eventSource = needsVisit
      ? sql`(SELECT * FROM (${selected}) ALL INNER JOIN (${visitSide}) USING (site_id, anon_id, is_internal) WHERE ts >= v_start AND ts <= v_end)`
      : sql`(${selected})`;
    const visitorsOf = pageviewVisitorsOnly ? sql`uniqExactIf(anon_id, type = 'pageview')` : sql`uniqExact(anon_id)`;
    // With a total: each group's visitors kept as a uniqExact state, the total merged from them, all in one pass. (The
    // arrayJoin of each event into its group and the total, as for visits, doubled the events grouped: at 23M events
    // it made a 30-day summary's event query 13 s against 3 s for the days alone, at load average 50.)
    const eventRows = withTotal
      ? clickhouse.query<GroupRow>(
          sql`SELECT parts, events, pageviews, conversions, visitors FROM (
              SELECT groupArray(key) AS keys, groupArray(key_events) AS all_events, groupArray(key_pageviews) AS all_pageviews,
                groupArray(key_conversions) AS all_conversions, groupArray(finalizeAggregation(key_visitors)) AS all_visitors,
                sum(key_events) AS total_events, sum(key_pageviews) AS total_pageviews, sum(key_conversions) AS total_conversions,
                ${pageviewVisitorsOnly ? sql`uniqExactIfMerge` : sql`uniqExactMerge`}(key_visitors) AS total_visitors
              FROM (SELECT ${groupKeys.events} AS key, count() AS key_events, countIf(type = 'pageview') AS key_pageviews,
                  countIf(type = ${purchaseType}) AS key_conversions,
                  ${pageviewVisitorsOnly ? sql`uniqExactIfState(anon_id, type = 'pageview')` : sql`uniqExactState(anon_id)`} AS key_visitors
                FROM ${eventSource} GROUP BY key))
            ARRAY JOIN arrayConcat([['']], keys) AS parts, arrayConcat([total_events], all_events) AS events,
              arrayConcat([total_pageviews], all_pageviews) AS pageviews, arrayConcat([total_conversions], all_conversions) AS conversions,
              arrayConcat([total_visitors], all_visitors) AS visitors`,
        )
      : clickhouse.query<GroupRow>(
          sql`SELECT ${groupKeys.events} AS parts, count() AS events, countIf(type = 'pageview') AS pageviews, countIf(type = ${purchaseType}) AS conversions,
              ${visitorsOf} AS visitors, ${grouping.by === 'campaign' ? sql`groupArray((revenue_currency, revenue_minor))` : sql`[]`} AS revenue
            FROM ${eventSource} GROUP BY parts`,
        );
    // The visit rows starting in the range, signed: every figure below is a sum of sign, exact before any merge (a
    // changed visit's old row and its -1 carry the same values, so each filter keeps or drops both).
    const visitsInRange = sql`SELECT * FROM signed_visits WHERE site_id IN ${listOf(question.scope.siteIds)} AND start_ts >= ${startMs} AND start_ts < ${endMs}
      AND (is_internal = 0 OR ${question.withInternal ? 1 : 0} = 1)${withoutDeleted(deletions, 'visits')}${visitFilterSql(filters)}`;
    // Visits by their entry and, for pages, exits by their exit: one pass over the visits for both (kind 1 and 2).
    const visitFigures = sql`sum(sign) AS visits, sum(sign * (pageviews = 1 AND events = 1)) AS bounces, sum(sign * (end_ts - start_ts)) AS duration,
              sum(sign * pageviews) AS visit_pageviews, sum(sign * events) AS visit_events`;
    const visitAndExitRows = !keys.visits
      ? Promise.resolve([])
      : keys.exits
        ? clickhouse.query<GroupRow & { kind: number }>(
            sql`SELECT kind_parts.1 AS kind, kind_parts.2 AS parts, ${visitFigures}
              FROM (${visitsInRange}) ARRAY JOIN [(1, ${keys.visits}), (2, ${keys.exits})] AS kind_parts
              WHERE (kind_parts.1 = 1${isIn('entry_path', filters.path)}) OR (kind_parts.1 = 2 AND exit_seq IS NOT NULL${isIn('exit_path', filters.path)})
              GROUP BY kind, parts HAVING visits != 0`,
          )
        : clickhouse.query<GroupRow & { kind: number }>(sql`SELECT 1 AS kind, ${keys.visits} AS parts, ${visitFigures} FROM (${visitsInRange}${isIn('entry_path', filters.path)}) GROUP BY parts HAVING visits != 0`);
    const groups = new Map<string, Figures>();
    const group = (parts: (string | null)[]) => {
      const key = keyOf(parts);
      if (key === null) return undefined;
      let found = groups.get(key);
      if (!found) groups.set(key, (found = emptyFigures()));
      return found;
    };
    // Together: awaited one by one, a second failure would be an unhandled rejection (which ends the process).
    const [eventAnswer, visitAndExitAnswer] = await Promise.all([eventRows, visitAndExitRows]);
    const visitAnswer = visitAndExitAnswer.filter((row) => row.kind === 1);
    const exitAnswer = visitAndExitAnswer.filter((row) => row.kind === 2).map((row) => ({ parts: row.parts, exits: row.visits }));
    for (const row of eventAnswer) {
      const figures = group(row.parts);
      if (!figures) continue;
      Object.assign(figures, { events: row.events, pageviews: row.pageviews, conversions: row.conversions, visitors: row.visitors });
      // Revenue is a campaign's figure only (report-questions.ts), as SQLite's rollups keep it: none elsewhere.
      if (grouping.by !== 'campaign') continue;
      const revenue = new Map<string, number>();
      for (const [currency, amount] of row.revenue as [string | null, number | null][]) {
        if (currency !== null && amount !== null) revenue.set(currency, (revenue.get(currency) ?? 0) + amount);
      }
      figures.revenue = new Map([...revenue].filter(([, amount]) => amount !== 0));
    }
    for (const row of visitAnswer) {
      const figures = group(row.parts);
      if (figures) Object.assign(figures, { visits: row.visits, bounces: row.bounces, durationMs: row.duration, visitPageviews: row.visit_pageviews, visitEvents: row.visit_events });
    }
    for (const row of exitAnswer) {
      const figures = group(row.parts);
      if (figures) figures.exits = row.exits as number;
    }
    return groups;
  }

  /** The same label the SQLite implementation gives the same question, so meta (and its warnings) stay identical. */
  function computedFromOf(question: Selection, grouping: Grouping): ComputedFrom {
    const dims: Record<string, number> = { all: Dim.total, day: Dim.total, ...Dim };
    if (grouping.by === 'interval') return computedFromOf(question, { by: grouping.interval === 'day' ? 'day' : 'all' });
    const rollupGrouping = grouping.by === 'all' || grouping.by === 'day' ? { by: grouping.by } : { by: 'value' as const, dim: dims[grouping.by]! as never };
    const selection = { siteIds: question.scope.siteIds, workspaceId: question.scope.workspaceId, range: question.range, filters: question.filters, withInternal: question.withInternal };
    return planRollupRead(selection, rollupGrouping) ? 'rollups' : 'events';
  }

  return {
    async series(question) {
      const caughtUp = await waitForShipping();
      const byInterval = await grouped(question, { by: 'interval', interval: question.interval, fromDay: question.range.fromDay }, true);
      const whole = byInterval;
      return {
        total: whole.get('') ?? emptyFigures(),
        points: intervalStarts(question.range, question.interval).map((startMs) => ({ startMs, ...(byInterval.get(String(startMs)) ?? emptyFigures()) })),
        freshness: await freshnessOf(clickhouse, question.scope.siteIds, caughtUp),
        // As the SQLite implementation labels it: hours always come from the events, other intervals as the totals.
        computedFrom: question.interval === 'hour' ? 'event_log' : computedFromOf(question, { by: 'all' }),
      };
    },

    async summary(question) {
      const caughtUp = await waitForShipping();
      const byDay = await grouped(question, { by: 'day' }, true);
      const whole = byDay;
      const withVisitors = (figures: Figures | undefined): Figures => {
        const shown = figures ?? emptyFigures();
        return question.visitors ? shown : { ...shown, visitors: 0 };
      };
      const days = Array.from({ length: question.range.toDay - question.range.fromDay + 1 }, (_, index) => question.range.fromDay + index);
      return {
        total: withVisitors(whole.get('')),
        days: days.map((day) => ({ day, ...withVisitors(byDay.get(String(day))) })),
        freshness: await freshnessOf(clickhouse, question.scope.siteIds, caughtUp),
        computedFrom: computedFromOf(question, { by: 'all' }),
      };
    },

    async ranking(question) {
      const caughtUp = await waitForShipping();
      const grouping = question.groupSources && question.by === 'source' && knownSources ? { by: question.by, knownSources: knownSources(question.scope.siteIds) } : { by: question.by };
      const groups = await grouped(question, grouping);
      const rows = [...groups]
        .filter(([, figures]) => figures.events + figures.visits + figures.exits > 0)
        .sort(([aKey, a], [bKey, b]) => b[question.order] - a[question.order] || (aKey < bKey ? -1 : aKey > bKey ? 1 : 0));
      const page = rows.slice(question.offset, question.offset + question.limit);
      return {
        rows: page.map(([key, figures]) => ({ key, figures })),
        more: rows.length > question.offset + question.limit,
        freshness: await freshnessOf(clickhouse, question.scope.siteIds, caughtUp),
        computedFrom: computedFromOf(question, { by: question.by }),
      };
    },

    async propValues(question) {
      if (question.filters.goal !== undefined) throw new Error('The goal filter is not answered over ClickHouse yet');
      const caughtUp = await waitForShipping();
      const startMs = question.range.fromDay * dayMs;
      const endMs = (question.range.toDay + 1) * dayMs;
      const filters = question.filters;
      const deletions = deletionsOf(question.scope.siteIds);
      const visitFiltered = Object.keys(visitFilterColumns).some((name) => filters[name as keyof typeof visitFilterColumns] !== undefined);
      const selected = sql`SELECT site_id, anon_id, is_internal, ts, raw FROM events
        WHERE site_id IN ${listOf(question.scope.siteIds)} AND ts >= ${startMs} AND ts < ${endMs} AND is_bot = 0 AND type = ${question.type}
          AND (is_internal = 0 OR ${question.withInternal ? 1 : 0} = 1)${isIn('path', filters.path)}${withoutDeleted(deletions, 'events')}`;
      const source = visitFiltered
        ? sql`SELECT anon_id, raw FROM (${selected}) ALL INNER JOIN (SELECT site_id, anon_id, is_internal, start_ts AS v_start, end_ts AS v_end
            FROM ${liveVisits(question, startMs, endMs, deletions)} WHERE 1 = 1${visitFilterSql(filters)}) USING (site_id, anon_id, is_internal) WHERE ts >= v_start AND ts <= v_end`
        : sql`SELECT anon_id, raw FROM (${selected})`;
      // 18.16 has no JSONExtract of a nested key: the props are read here, from the events of one type only.
      const counts = new Map<string, { events: number; visitors: Set<string> }>();
      for (const row of await clickhouse.query<{ anon_id: string; raw: string }>(source)) {
        const value = propValueText(row.raw, question.property, question.valueChars);
        if (value === undefined) continue;
        const found = counts.get(value) ?? { events: 0, visitors: new Set<string>() };
        found.events++;
        found.visitors.add(row.anon_id);
        counts.set(value, found);
      }
      const rows = [...counts]
        .map(([value, found]) => ({ value, events: found.events, visitors: found.visitors.size }))
        .sort((a, b) => b.events - a.events || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
        .slice(0, question.limit + 1);
      return { rows, freshness: await freshnessOf(clickhouse, question.scope.siteIds, caughtUp), computedFrom: 'event_log' };
    },
  };
}

/** A prop's value as the SQLite read prints it: text as is, true/false/null by name, numbers and objects as JSON. */
function propValueText(raw: string, property: string, valueChars: number): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return undefined;
  }
  const props = (parsed as { props?: unknown }).props;
  if (typeof props !== 'object' || props === null || Array.isArray(props) || !Object.hasOwn(props, property)) return undefined;
  const value = (props as Record<string, unknown>)[property];
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return [...text].slice(0, valueChars).join('');
}
