// The events of one type in a time span of a scope's sites, with their path and props: what a goal is matched
// against (src/vocabulary/goal-rule.ts). The props object is read from raw, so no JSON path is built from input.
import type { Db } from '../../../db/open.ts';
import { preparedOnce } from '../../../db/statements.ts';

export interface GoalCandidateParams {
  /** JSON array of the scope's site ids. */
  site_ids: string;
  type: string;
  start_ms: number;
  end_ms: number;
  max_seq: number;
}

export interface GoalCandidateRow {
  seq: number;
  path: string | null;
  /** The props object as JSON text, or null. */
  props: string | null;
}

const from = `FROM events
     WHERE site_id IN (SELECT value FROM json_each(:site_ids)) AND type = :type AND ts >= :start_ms AND ts < :end_ms
       AND seq <= :max_seq AND is_bot = 0`;

const statements = preparedOnce((db) => ({
  candidates: db.prepare<GoalCandidateParams, GoalCandidateRow>(
    `SELECT seq, path, CASE WHEN json_valid(raw) AND json_type(raw, '$.props') = 'object' THEN json_extract(raw, '$.props') END AS props ${from}`,
  ),
  // A goal without props never looks at them: parsing every candidate's raw JSON was a tenth of a filtered
  // dashboard's CPU with a pageview goal (every pageview of the range is a candidate).
  withoutProps: db.prepare<GoalCandidateParams, GoalCandidateRow>(`SELECT seq, path, NULL AS props ${from}`),
}));

/** withProps false: every row's props is null (for a goal that has none to match). */
export function listGoalCandidates(db: Db, params: GoalCandidateParams, withProps = true): GoalCandidateRow[] {
  return (withProps ? statements(db).candidates : statements(db).withoutProps).all(params);
}
