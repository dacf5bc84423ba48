// A stored goal as the endpoints answer it: absent fields are left out, as CONTRACT section 10 writes them.
import type { GoalAnswer } from './answers.ts';
import type { GoalRow } from './queries/goal-rows.ts';

export function toGoalAnswer(row: GoalRow): GoalAnswer {
  return {
    id: row.id,
    site_id: row.site_id,
    name: row.name,
    kind: row.kind,
    ...(row.path !== null ? { path: row.path } : {}),
    ...(row.event_type !== null ? { event_type: row.event_type } : {}),
    ...(row.props !== null ? { props: JSON.parse(row.props) as Record<string, string> } : {}),
    created_at: row.created_at,
  };
}
