// Everything the projector derived, of every site: dropped when it must derive it all again (src/projector/reconcile.ts).
// Sites whose old events the retention purge deleted keep what cannot be derived again: the rollups of their purged
// days, the value and visitor numbers those rollups refer to, and their identity bindings.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

/** The projector's tables: a fixed list, never input. */
const projectedTables = ['sessions', 'visit_sequences', 'identities', 'visitor_events', 'event_visitors', 'report_visitors', 'report_visitor_numbers', 'report_values', 'report_counters', 'report_visitor_sets', 'report_revenue'] as const;

export function deleteAllProjected(db: Db): void {
  for (const table of projectedTables) db.prepare(`DELETE FROM ${table}`).run();
}

/** A purged site and the periods of its rollups to keep: days before `day`, months before `month`. */
export interface KeptPeriods {
  site_id: string;
  day: number;
  month: number;
}

export interface DayShardRow {
  dim: number;
  internal: number;
  shard: number;
  entries: Buffer;
}

const kept = "site_id IN (SELECT value FROM json_each(:sites))";
const rollupTables = ['report_counters', 'report_visitor_sets', 'report_revenue'] as const;

const statements = preparedOnce((db) => ({
  // Every table but the rollups and report_visitor_numbers (numbers are only ever allocated higher: keeping them is
  // harmless, and the kept visitor sets refer to them).
  unkept: [
    db.prepare<{ sites: string }>('DELETE FROM sessions'),
    db.prepare<{ sites: string }>('DELETE FROM visit_sequences'),
    db.prepare<{ sites: string }>('DELETE FROM visitor_events'),
    db.prepare<{ sites: string }>('DELETE FROM event_visitors'),
    db.prepare<{ sites: string }>(`DELETE FROM identities WHERE NOT ${kept}`),
    db.prepare<{ sites: string }>(`DELETE FROM report_visitors WHERE NOT ${kept}`),
    db.prepare<{ sites: string }>(`DELETE FROM report_values WHERE NOT ${kept}`),
    ...rollupTables.map((table) => db.prepare<{ sites: string }>(`DELETE FROM ${table} WHERE NOT ${kept}`)),
  ],
  laterPeriods: rollupTables.map((table) =>
    db.prepare<KeptPeriods>(`DELETE FROM ${table} WHERE site_id = :site_id AND ((grain = 0 AND period >= :day) OR (grain = 1 AND period >= :month))`),
  ),
  dayShards: db.prepare<{ site_id: string; from: number; to: number }, DayShardRow>(
    'SELECT dim, internal, shard, entries FROM report_counters WHERE site_id = :site_id AND grain = 0 AND period >= :from AND period < :to',
  ),
  monthRevenue: db.prepare<{ site_id: string; month: number; from: number; to: number }>(
    `INSERT INTO report_revenue (site_id, dim, grain, period, internal, value_id, currency, amount_minor)
     SELECT site_id, dim, 1, :month, internal, value_id, currency, sum(amount_minor) FROM report_revenue
      WHERE site_id = :site_id AND grain = 0 AND period >= :from AND period < :to
      GROUP BY site_id, dim, internal, value_id, currency HAVING sum(amount_minor) != 0`,
  ),
}));

/**
 * Drops what will be derived again: everything of sites never purged; of each purged site, its visits, visitor index
 * and the rollups of its kept days and months (the month holding its first kept day is rebuilt by the caller).
 */
export function deleteProjectedExceptPurged(db: Db, purged: readonly KeptPeriods[]): void {
  const sites = JSON.stringify(purged.map((site) => site.site_id));
  for (const statement of statements(db).unkept) statement.run({ sites });
  for (const site of purged) for (const statement of statements(db).laterPeriods) statement.run(site);
}

/** The day counter shards of a site with from <= day < to. */
export function listDayShards(db: Db, siteId: string, from: number, to: number): DayShardRow[] {
  return statements(db).dayShards.all({ site_id: siteId, from, to });
}

/** The month's revenue as the sum of its days in [from, to) (the month row must not exist). */
export function addMonthRevenueOfDays(db: Db, siteId: string, month: number, from: number, to: number): void {
  statements(db).monthRevenue.run({ site_id: siteId, month, from, to });
}
