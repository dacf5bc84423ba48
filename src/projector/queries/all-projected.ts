// Everything the projector derived, of every site: dropped when it must derive it all again (src/projector/reconcile.ts).
import type { Db } from '../../db/open.ts';

/** The projector's tables: a fixed list, never input. */
const projectedTables = ['sessions', 'identities', 'visitor_events', 'report_visitors', 'report_visitor_numbers', 'report_values', 'report_counters', 'report_visitor_sets', 'report_revenue'] as const;

export function deleteAllProjected(db: Db): void {
  for (const table of projectedTables) db.prepare(`DELETE FROM ${table}`).run();
}
