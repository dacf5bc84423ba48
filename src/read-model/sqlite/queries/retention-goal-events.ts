// The events retention starting on a goal reads (retention-cohorts.ts): a goal's candidate events of one site with
// the visitor number of who made them (event_visitors), in a span of time, or of a set of visitors before a time (the
// visitor index, visitor_events). A goal's path narrows the candidates here (exact, or the prefix before its `*`);
// the goal rule (src/vocabulary/goal-rule.ts) decides the rest. Bots never count; internal traffic when asked. The
// props are read (parsed out of raw) only when the goal has some: `with_props` 0 answers null for them.
// An event goal's type is never pageview: its candidates come through the event log's partial index of the other
// types (events_by_site_type_ts, schema 31), the range's and the earlier ones alike, without reading any pageview; a
// pageview goal's (one with props: the others are answered from the path visitor sets) through the range's scan and
// the candidates' visitor index.
import type { Db } from '../../../db/open.ts';
import { preparedOnce } from '../../../db/statements.ts';

export interface GoalCandidateFilter {
  site_id: string;
  type: string;
  /** The goal's exact path, or null. */
  exact_path: string | null;
  /** The part of a `/x/*` path before the star, or null. */
  path_prefix: string | null;
  max_seq: number;
  with_internal: number;
  /** 1: read each candidate's props (the goal tests some); 0: null for all. */
  with_props: number;
}

export interface GoalEventsInSpan extends GoalCandidateFilter {
  start_ms: number;
  end_ms: number;
}

export interface GoalEventsOfVisitorsBefore extends GoalCandidateFilter {
  /** JSON array of visitor numbers. */
  vids: string;
  before_ms: number;
}

export interface RetentionGoalEventRow {
  vid: number;
  ts: number;
  path: string | null;
  /** The props object as JSON text, or null. */
  props: string | null;
}

const columns = `ev.vid, e.ts, e.path,
  CASE WHEN :with_props = 1 AND json_valid(e.raw) AND json_type(e.raw, '$.props') = 'object' THEN json_extract(e.raw, '$.props') END AS props`;
const candidate = `e.site_id = :site_id AND e.type = :type AND e.seq <= :max_seq AND e.is_bot = 0 AND (:with_internal = 1 OR e.is_internal = 0)
  AND (:exact_path IS NULL OR e.path = :exact_path) AND (:path_prefix IS NULL OR substr(e.path, 1, length(:path_prefix)) = :path_prefix)`;

// The literal `e.type <> 'pageview'` lets the planner use the partial index (its WHERE must appear in the query's).
const ofType = `e.site_id = :site_id AND e.type = :type AND e.type <> 'pageview'`;

const statements = preparedOnce((db) => ({
  inSpanOfType: db.prepare<GoalEventsInSpan, RetentionGoalEventRow>(
    `SELECT ${columns} FROM events e INDEXED BY events_by_site_type_ts JOIN event_visitors ev ON ev.seq = e.seq
      WHERE ${ofType} AND e.ts >= :start_ms AND e.ts < :end_ms AND ${candidate}`,
  ),
  // Every earlier event of the type, then whether its visitor is one of the set.
  ofVisitorsBeforeOfType: db.prepare<GoalEventsOfVisitorsBefore, RetentionGoalEventRow>(
    `SELECT ${columns} FROM events e INDEXED BY events_by_site_type_ts JOIN event_visitors ev ON ev.seq = e.seq
      WHERE ${ofType} AND e.ts < :before_ms AND ${candidate} AND ev.vid IN (SELECT value FROM json_each(:vids))`,
  ),
  inSpan: db.prepare<GoalEventsInSpan, RetentionGoalEventRow>(
    `SELECT ${columns} FROM events e INDEXED BY events_by_site_ts JOIN event_visitors ev ON ev.seq = e.seq
      WHERE e.ts >= :start_ms AND e.ts < :end_ms AND ${candidate}`,
  ),
  // The earlier candidates of a set of visitors, in one statement: a statement per visitor cost tens of µs each in
  // binding and stepping alone, with thousands of candidates. CROSS JOIN keeps the order: each visitor number, then
  // its entries of the visitor index before the time (a seek of its primary key), then their events. A visitor
  // number is shared by the sites of a workspace: the event's site is checked.
  ofVisitorsBefore: db.prepare<GoalEventsOfVisitorsBefore, RetentionGoalEventRow>(
    `SELECT ${columns} FROM json_each(:vids) j CROSS JOIN visitor_events ev ON ev.vid = j.value CROSS JOIN events e ON e.seq = ev.seq
      WHERE ev.ts < :before_ms AND ${candidate}`,
  ),
  pathValues: db
    .prepare<{ site_id: string; dim: number; exact_path: string | null; path_prefix: string | null }, number>(
      `SELECT value_id FROM report_values WHERE site_id = :site_id AND dim = :dim
          AND (value = :exact_path OR substr(value, 1, length(:path_prefix)) = :path_prefix)`,
    )
    .pluck(),
}));

/** The value ids of one dimension's values equal to `exact_path` or starting with `path_prefix` (the other null). */
export function listPathValueIds(db: Db, params: { site_id: string; dim: number; exact_path: string | null; path_prefix: string | null }): number[] {
  return statements(db).pathValues.all(params);
}

const pageview = 'pageview';

/** The candidates in [start_ms, end_ms), in no particular order. */
export function listGoalEventsInSpan(db: Db, params: GoalEventsInSpan): RetentionGoalEventRow[] {
  return (params.type === pageview ? statements(db).inSpan : statements(db).inSpanOfType).all(params);
}

/** The candidates of some visitors before `before_ms`, in no particular order. */
export function listGoalEventsOfVisitorsBefore(db: Db, params: GoalEventsOfVisitorsBefore): RetentionGoalEventRow[] {
  return (params.type === pageview ? statements(db).ofVisitorsBefore : statements(db).ofVisitorsBeforeOfType).all(params);
}

/** The SQL of the two reads for a goal of this event type. Exported for the query-plan test. */
export function goalEventsSql(db: Db, type: string): { inSpan: string; before: string } {
  const prepared = statements(db);
  return type === pageview ? { inSpan: prepared.inSpan.source, before: prepared.ofVisitorsBefore.source } : { inSpan: prepared.inSpanOfType.source, before: prepared.ofVisitorsBeforeOfType.source };
}
