// The event questions over ClickHouse: the shipped event log, with CONTRACT's rules as the SQLite reads apply them (no
// bots, internal traffic only when asked, the path filter on the event's own path, the visit filters on the visit
// holding the event). Lists, type counts and activity read ClickHouse (history lives there); a live tail and the
// newest position read the embedded log, which always holds the newest events (ClickHouse receives them later).
import type { ClickHouse } from '../../clickhouse/client.ts';
import type { EventRow } from '../../event-store/queries/event-row-columns.ts';
import { toListedEvent } from '../listed-event.ts';
import { withoutDeleted } from '../../clickhouse/deletion-sql.ts';
import type { PendingDeletion } from '../../clickhouse/deletions.ts';
import { sql, type SqlText } from '../../clickhouse/sql-literal.ts';
import { dayMs } from '../../vocabulary/periods.ts';
import type { ReportFilters } from '../../vocabulary/report-filters.ts';
import type { EventQuestions } from '../event-questions.ts';
import type { Answer, Selection } from '../questions.ts';
import { freshnessOf, isIn, listOf, liveVisits, visitFilterSql } from './common.ts';

export interface ClickHouseEventReadOptions {
  clickhouse: ClickHouse;
  /** Waits, bounded, until ClickHouse holds every event projected before the call; false when the wait ran out. */
  waitForShipping: () => Promise<boolean>;
  /** What reads of these sites leave out now: deletions ClickHouse has not carried out yet (clickhouse/deletions.ts). */
  deletionsOf: (siteIds: readonly string[]) => PendingDeletion[];
  /**
   * The embedded read model's questions about the newest events (a live tail, the newest position, the visitors of a
   * recent window for alerts), which are in SQLite first and never wait for shipping.
   */
  tail: Pick<EventQuestions, 'eventsAfter' | 'newestPosition' | 'visitorsInWindow'>;
}

/** A stored event's columns as ClickHouse holds them, with its site. */
type SiteEventRow = EventRow & { site_id: string };

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const hasVisitFilter = (filters: ReportFilters) => ['source', 'device', 'browser', 'os', 'country', 'region', 'city'].some((name) => filters[name as keyof ReportFilters] !== undefined);

/**
 * The scope's counted events with event time in [startMs, endMs) and the filters applied: `columns` of each. With a
 * visit filter, an event counts when the visit holding it (same visitor, start_ts <= ts <= end_ts) matches.
 */
export function selectedEvents(question: Pick<Selection, 'scope' | 'filters' | 'withInternal'>, deletions: readonly PendingDeletion[], startMs: number, endMs: number, columns: SqlText, extra: SqlText = sql``): SqlText {
  const events = sql`SELECT * FROM events
    WHERE site_id IN ${listOf(question.scope.siteIds)} AND ts >= ${startMs} AND ts < ${endMs} AND is_bot = 0
      AND (is_internal = 0 OR ${question.withInternal ? 1 : 0} = 1)${isIn('path', question.filters.path)}${withoutDeleted(deletions, 'events')}${extra}`;
  if (!hasVisitFilter(question.filters)) return sql`SELECT ${columns} FROM (${events})`;
  const visits = sql`SELECT site_id, anon_id, is_internal, start_ts AS v_start, end_ts AS v_end FROM ${liveVisits(question, startMs, endMs, deletions)} WHERE 1 = 1${visitFilterSql(question.filters)}`;
  return sql`SELECT ${columns} FROM (${events}) ALL INNER JOIN (${visits}) USING (site_id, anon_id, is_internal) WHERE ts >= v_start AND ts <= v_end`;
}

const listedColumns = sql`seq, site_id, id, type, ts, received_at, anon_id, path, source, country, region, city, browser, os, device_type, raw`;

export function createClickHouseEventReads({ clickhouse, waitForShipping, deletionsOf, tail }: ClickHouseEventReadOptions): EventQuestions {
  async function answered<Figures>(figures: Figures, siteIds: readonly string[], caughtUp: boolean): Promise<Answer<Figures>> {
    return { ...figures, freshness: await freshnessOf(clickhouse, siteIds, caughtUp), computedFrom: 'event_log' };
  }

  return {
    async listEvents(question) {
      const caughtUp = await waitForShipping();
      // Newest first pages backwards: before the last position shown, in descending order.
      const newest = question.newestFirst === true;
      const after = question.afterPosition === undefined ? sql`` : newest ? sql` AND seq < ${question.afterPosition}` : sql` AND seq > ${question.afterPosition}`;
      const rows = await clickhouse.query<SiteEventRow>(
        sql`${selectedEvents(question, deletionsOf(question.scope.siteIds), question.range.fromDay * dayMs, (question.range.toDay + 1) * dayMs, listedColumns, after)} ORDER BY seq ${newest ? sql`DESC` : sql`ASC`} LIMIT ${question.limit + 1}`,
      );
      const page = { events: rows.slice(0, question.limit).map((row) => toListedEvent(row, row.site_id)), more: rows.length > question.limit };
      return answered(page, question.scope.siteIds, caughtUp);
    },

    async eventTypeCounts(question) {
      const caughtUp = await waitForShipping();
      const rows = await clickhouse.query<{ type: string; count: number }>(
        sql`SELECT type, count() AS count FROM (${selectedEvents(question, deletionsOf(question.scope.siteIds), question.range.fromDay * dayMs, (question.range.toDay + 1) * dayMs, sql`type`)}) GROUP BY type`,
      );
      const types = rows.sort((a, b) => b.count - a.count || byText(a.type, b.type));
      return answered({ types }, question.scope.siteIds, caughtUp);
    },

    async pathActivity(question) {
      const caughtUp = await waitForShipping();
      const { window } = question;
      const bucketCount = Math.ceil((window.endMs - window.startMs) / window.bucketMs);
      const rows = await clickhouse.query<{ path: string; bucket: number; count: number }>(
        sql`SELECT path, intDiv(ts - ${window.startMs}, ${window.bucketMs}) AS bucket, count() AS count
            FROM (${selectedEvents(question, deletionsOf(question.scope.siteIds), question.countFromMs, window.endMs, sql`path, ts`, sql` AND path IS NOT NULL`)}) GROUP BY path, bucket`,
      );
      const byPath = new Map<string, number[]>();
      for (const row of rows) {
        let buckets = byPath.get(row.path);
        if (!buckets) byPath.set(row.path, (buckets = new Array<number>(bucketCount).fill(0)));
        buckets[row.bucket]! += row.count;
      }
      const paths = [...byPath]
        .map(([path, buckets]) => ({ path, total: buckets.reduce((sum, count) => sum + count, 0), buckets }))
        .sort((a, b) => b.total - a.total || byText(a.path, b.path));
      return answered({ paths: paths.slice(0, question.limit), more: paths.length > question.limit }, question.scope.siteIds, caughtUp);
    },

    eventsAfter: (question) => tail.eventsAfter(question),
    newestPosition: () => tail.newestPosition(),
    visitorsInWindow: (question) => tail.visitorsInWindow(question),
  };
}
