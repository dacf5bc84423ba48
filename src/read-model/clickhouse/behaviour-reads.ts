// The behaviour questions over ClickHouse: journeys and page flow count the page sequences of the shipped visits that
// start in the range and pass the visit filters (their entry's values, as the SQLite scan tests a visit's first
// event), each sequence their pageview paths in (ts, seq) order with consecutive repeats collapsed; the counting is
// the SQLite implementation's own (countJourneys, countPageFlow), so ties and order are the same. ClickHouse sends
// one row per pageview of those visits (the last step, in TypeScript over the range's pageviews: docs/clickhouse.md).
// Retention reads the projector's daily visitor sets (rollups), which stay in the embedded database.
import type { ClickHouse } from '../../clickhouse/client.ts';
import { withoutDeleted } from '../../clickhouse/deletion-sql.ts';
import type { PendingDeletion } from '../../clickhouse/deletions.ts';
import { sql } from '../../clickhouse/sql-literal.ts';
import { dayMs } from '../../vocabulary/periods.ts';
import type { BehaviourQuestions } from '../behaviour-questions.ts';
import type { Selection } from '../questions.ts';
import { countJourneys, countPageFlow } from '../sqlite/behaviour-reads.ts';
import type { VisitSequences } from '../sqlite/visit-sequences.ts';
import { freshnessOf, listOf, liveVisits, visitFilterSql } from './common.ts';

export interface ClickHouseBehaviourReadOptions {
  clickhouse: ClickHouse;
  waitForShipping: () => Promise<boolean>;
  deletionsOf: (siteIds: readonly string[]) => PendingDeletion[];
  /** The embedded implementation: retention (rollups). */
  embedded: BehaviourQuestions;
}

interface PageRow {
  site_id: string;
  anon_id: string;
  is_internal: number;
  visit_id: number;
  path: string;
}

/** The visits starting in the range that pass the filters, each as its collapsed sequence of pageview paths. */
async function readVisitSequences(clickhouse: ClickHouse, selection: Selection, deletions: readonly PendingDeletion[]): Promise<VisitSequences> {
  const startMs = selection.range.fromDay * dayMs;
  const endMs = (selection.range.toDay + 1) * dayMs;
  const visits = sql`SELECT site_id, anon_id, is_internal, visit_id, start_ts AS v_start, end_ts AS v_end
    FROM ${liveVisits(selection, startMs, endMs, deletions)} WHERE start_ts >= ${startMs}${visitFilterSql(selection.filters)}`;
  // A visit's events lie in [start_ts, end_ts]: the scan is bounded by the range's start and its visits' last end.
  const rows = await clickhouse.query<PageRow>(
    sql`SELECT site_id, anon_id, is_internal, visit_id, path FROM (
          SELECT site_id, anon_id, is_internal, ts, seq, path FROM events
          WHERE site_id IN ${listOf(selection.scope.siteIds)} AND type = 'pageview' AND path IS NOT NULL AND is_bot = 0
            AND (is_internal = 0 OR ${selection.withInternal ? 1 : 0} = 1) AND ts >= ${startMs}
            AND ts <= (SELECT max(v_end) FROM (${visits}))${withoutDeleted(deletions, 'events')})
        ALL INNER JOIN (${visits}) USING (site_id, anon_id, is_internal)
        WHERE ts >= v_start AND ts <= v_end
        ORDER BY site_id, anon_id, is_internal, visit_id, ts, seq`,
  );
  const result: VisitSequences = { paths: [], visitors: [], sequences: [] };
  const pathIds = new Map<string, number>();
  const visitorIds = new Map<string, number>();
  const pathFilter = selection.filters.path ? new Set(selection.filters.path) : null;
  let visitKey = '';
  let sequence: number[] = [];
  let passesPath = false;
  let visitor = 0;
  const close = () => {
    if (sequence.length > 0 && passesPath) {
      result.visitors.push(visitor);
      result.sequences.push(sequence);
    }
  };
  for (const row of rows) {
    const key = `${row.site_id}\u0000${row.anon_id}\u0000${row.is_internal}\u0000${row.visit_id}`;
    if (key !== visitKey) {
      close();
      visitKey = key;
      sequence = [];
      passesPath = pathFilter === null;
      // A visitor is an anon_id across the scope's sites (as the SQLite implementation's visitor number).
      let id = visitorIds.get(row.anon_id);
      if (id === undefined) visitorIds.set(row.anon_id, (id = visitorIds.size));
      visitor = id;
    }
    let id = pathIds.get(row.path);
    if (id === undefined) {
      id = result.paths.length;
      pathIds.set(row.path, id);
      result.paths.push(row.path);
    }
    if (!passesPath && pathFilter!.has(row.path)) passesPath = true;
    if (sequence[sequence.length - 1] !== id) sequence.push(id);
  }
  close();
  return result;
}

export function createClickHouseBehaviourReads({ clickhouse, waitForShipping, deletionsOf, embedded }: ClickHouseBehaviourReadOptions): BehaviourQuestions {
  const answer = async <Figures>(selection: Selection, count: (visits: VisitSequences) => Figures) => {
    const caughtUp = await waitForShipping();
    const visits = await readVisitSequences(clickhouse, selection, deletionsOf(selection.scope.siteIds));
    return { ...count(visits), freshness: await freshnessOf(clickhouse, selection.scope.siteIds, caughtUp), computedFrom: 'event_log' as const };
  };
  return {
    journeys: (question) => answer(question, (visits) => countJourneys(visits, question)),
    pageFlow: (question) => answer(question, (visits) => countPageFlow(visits, question.path, question.limit)),
    retention: (question) => embedded.retention(question),
  };
}
