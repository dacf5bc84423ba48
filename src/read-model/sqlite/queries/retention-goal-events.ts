// The events retention starting on a goal reads (retention-cohorts.ts): a goal's candidate events of one site with
// the visitor number of who made them (event_visitors), in a span of time, or of one visitor before a time (the
// visitor index, visitor_events). A goal's path narrows the candidates here (exact, or the prefix before its `*`);
// the goal rule (src/vocabulary/goal-rule.ts) decides the rest. Bots never count; internal traffic when asked.
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
}

export interface GoalEventsInSpan extends GoalCandidateFilter {
  start_ms: number;
  end_ms: number;
}

export interface GoalEventsOfVisitorBefore extends GoalCandidateFilter {
  vid: number;
  before_ms: number;
}

export interface RetentionGoalEventRow {
  vid: number;
  ts: number;
  path: string | null;
  /** The props object as JSON text, or null. */
  props: string | null;
}

const columns = `ev.vid, e.ts, e.path, CASE WHEN json_valid(e.raw) AND json_type(e.raw, '$.props') = 'object' THEN json_extract(e.raw, '$.props') END AS props`;
const candidate = `e.site_id = :site_id AND e.type = :type AND e.seq <= :max_seq AND e.is_bot = 0 AND (:with_internal = 1 OR e.is_internal = 0)
  AND (:exact_path IS NULL OR e.path = :exact_path) AND (:path_prefix IS NULL OR substr(e.path, 1, length(:path_prefix)) = :path_prefix)`;

const statements = preparedOnce((db) => ({
  inSpan: db.prepare<GoalEventsInSpan, RetentionGoalEventRow>(
    `SELECT ${columns} FROM events e INDEXED BY events_by_site_ts JOIN event_visitors ev ON ev.seq = e.seq
      WHERE e.ts >= :start_ms AND e.ts < :end_ms AND ${candidate}`,
  ),
  // One visitor's earlier candidates, newest first (a person who converted before mostly did so lately: the reader
  // stops at the first conversion). A visitor number is shared by the sites of a workspace: the event's site is
  // checked. CROSS JOIN keeps the visitor index first: the planner would otherwise walk every event of the site
  // and probe the index for each.
  ofVisitorBefore: db.prepare<GoalEventsOfVisitorBefore, RetentionGoalEventRow>(
    `SELECT ${columns} FROM visitor_events ev CROSS JOIN events e ON e.seq = ev.seq
      WHERE ev.vid = :vid AND ev.ts < :before_ms AND ${candidate}
      ORDER BY ev.ts DESC, ev.seq DESC`,
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

export function listGoalEventsInSpan(db: Db, params: GoalEventsInSpan): RetentionGoalEventRow[] {
  return statements(db).inSpan.all(params);
}

/** Whether any of one visitor's candidates before `before_ms` passes `converts` (stops at the first that does). */
export function someGoalEventOfVisitorBefore(db: Db, params: GoalEventsOfVisitorBefore, converts: (row: RetentionGoalEventRow) => boolean): boolean {
  for (const row of statements(db).ofVisitorBefore.iterate(params)) if (converts(row)) return true;
  return false;
}
