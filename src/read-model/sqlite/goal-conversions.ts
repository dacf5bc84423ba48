// Which raw events convert on a goal: the goal's candidate events in the span of the visits at hand, matched by the
// vocabulary's rule. Used by the goal filter (visits that converted) and by goals-v2.
import type { Db } from '../../db/open.ts';
import { eventMatchesGoal, goalEventType, goalHasProps, type GoalRule } from '../../vocabulary/goal-rule.ts';
import { listGoalCandidates } from './queries/goal-candidate-events.ts';
import type { RawVisit } from './raw-visits.ts';

/** The seqs of the events converting on `rule` among the visits' events (up to maxSeq). */
export function convertingSeqs(db: Db, siteIds: readonly string[], visits: readonly RawVisit[], rule: GoalRule, maxSeq: number): Set<number> {
  if (visits.length === 0) return new Set();
  let start = Infinity;
  let end = -Infinity;
  for (const visit of visits) {
    start = Math.min(start, visit.start_ts);
    end = Math.max(end, visit.end_ts);
  }
  return convertingSeqsIn(db, siteIds, rule, start, end + 1, maxSeq);
}

/** The seqs of the scope's events converting on `rule` from startMs to before endMs (up to maxSeq). */
export function convertingSeqsIn(db: Db, siteIds: readonly string[], rule: GoalRule, startMs: number, endMs: number, maxSeq: number): Set<number> {
  const withProps = goalHasProps(rule);
  const rows = listGoalCandidates(db, { site_ids: JSON.stringify(siteIds), type: goalEventType(rule), start_ms: startMs, end_ms: endMs, max_seq: maxSeq }, withProps);
  const seqs = new Set<number>();
  for (const row of rows) {
    if (eventMatchesGoal(rule, { type: goalEventType(rule), path: row.path, props: row.props === null ? null : JSON.parse(row.props) })) seqs.add(row.seq);
  }
  return seqs;
}

/** The visits with at least one event converting on the goal. */
export function convertedVisits(db: Db, siteIds: readonly string[], visits: readonly RawVisit[], rule: GoalRule, maxSeq: number): RawVisit[] {
  const seqs = convertingSeqs(db, siteIds, visits, rule, maxSeq);
  return visits.filter((visit) => visit.events.some((event) => seqs.has(event.seq)));
}
