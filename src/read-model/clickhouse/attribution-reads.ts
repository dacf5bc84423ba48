// The attribution questions over ClickHouse, with the SQLite implementation's semantics (sqlite/journeys.ts): each
// range's purchases (non-bot, not internal, up to the answer's position, in (ts, seq) order), each with its person
// (the purchase's user_id, else the user its anon_id was bound to last on the site, else none) and that person's
// visits on the site that start in [ts − lookback, ts), internal ones left out. ClickHouse is asked three times per
// range (the purchases, the bindings of their anon_ids and users, the visits of every anon_id involved); the
// journeys are put together here. The lists each answer hands the next travel as external tables, not literals, so a
// statement's size does not grow with the number of purchasers.
import type { ClickHouse, ExternalTable } from '../../clickhouse/client.ts';
import { withoutDeleted } from '../../clickhouse/deletion-sql.ts';
import type { PendingDeletion } from '../../clickhouse/deletions.ts';
import { sql } from '../../clickhouse/sql-literal.ts';
import type { AttributionQuestions, Conversion, ConversionRange } from '../attribution-questions.ts';
import { freshnessOf, listOf, signedVisits } from './common.ts';

export interface ClickHouseAttributionReadOptions {
  clickhouse: ClickHouse;
  waitForShipping: () => Promise<boolean>;
  deletionsOf: (siteIds: readonly string[]) => PendingDeletion[];
}

interface PurchaseRow {
  seq: number;
  id: string;
  site_id: string;
  anon_id: string;
  user_id: string | null;
  ts: number;
  revenue_minor: number | null;
  revenue_currency: string | null;
}

interface BindingRow {
  site_id: string;
  anon_id: string;
  user_id: string;
  first_seen: number;
  last_seen: number;
}

interface VisitRow {
  site_id: string;
  anon_id: string;
  start_ts: number;
  source: string;
  utm_medium: string | null;
  utm_campaign: string | null;
}

const pairKey = (siteId: string, id: string) => `${siteId}\u0000${id}`;

/** Distinct (site_id, <column>) pairs as an external table of the query (client.ts, ExternalTable). */
function pairsTable(name: string, column: 'anon_id' | 'user_id', pairs: readonly (readonly [string, string])[]): ExternalTable {
  const distinct = new Map(pairs.map(([siteId, id]) => [pairKey(siteId, id), { site_id: siteId, [column]: id }]));
  return { name, columns: { site_id: 'String', [column]: 'String' }, rows: [...distinct.values()] };
}

export function createClickHouseAttributionReads({ clickhouse, waitForShipping, deletionsOf }: ClickHouseAttributionReadOptions): AttributionQuestions {
  async function purchasesOf(siteIds: readonly string[], range: ConversionRange, maxSeq: number, deletions: readonly PendingDeletion[]): Promise<{ rows: PurchaseRow[]; more: boolean }> {
    const after = range.page?.after ?? { ts: -1, seq: -1 };
    const limit = range.page ? sql` LIMIT ${range.page.limit + 1}` : sql``;
    const rows = await clickhouse.query<PurchaseRow>(
      sql`SELECT seq, id, site_id, anon_id, user_id, ts, revenue_minor, revenue_currency FROM events
          WHERE site_id IN ${listOf(siteIds)} AND ts >= ${range.startMs} AND ts <= ${range.endMs}
            AND type = 'purchase' AND is_bot = 0 AND is_internal = 0 AND seq <= ${maxSeq}
            AND (ts > ${after.ts} OR (ts = ${after.ts} AND seq > ${after.seq}))${range.eventId === null ? sql`` : sql` AND id = ${range.eventId}`}
            ${withoutDeleted(deletions, 'events')}
          ORDER BY ts, seq${limit}`,
    );
    if (!range.page) return { rows, more: false };
    return { rows: rows.slice(0, range.page.limit), more: rows.length > range.page.limit };
  }

  /** Every binding of the purchases' anon_ids and users on their sites, with when each was first and last seen. */
  async function bindingsOf(purchases: readonly PurchaseRow[], deletions: readonly PendingDeletion[]): Promise<BindingRow[]> {
    if (purchases.length === 0) return [];
    // The purchasers travel as tables of the query (external data), never as literals: a 30-day range holds as many
    // as it has buyers, and a statement's size is bounded (the benchmark's "AST is too big").
    const anons = pairsTable('purchase_anons', 'anon_id', purchases.map((row) => [row.site_id, row.anon_id]));
    const users = pairsTable('purchase_users', 'user_id', purchases.flatMap((row) => (row.user_id === null ? [] : [[row.site_id, row.user_id] as const])));
    // First and last seen as the projector's identities keep them: the times of the events that made the binding.
    // Two steps: the users of the anon_ids (and the purchases' own users), then every anon_id of those users.
    // Aliases differ from column names: in ClickHouse an alias named like a column replaces it in WHERE too.
    const usersOfAnons = await clickhouse.query<{ site_id: string; bound_user: string }>(
      sql`SELECT DISTINCT site_id, assumeNotNull(user_id) AS bound_user FROM events
          WHERE user_id IS NOT NULL AND ((site_id, anon_id) IN purchase_anons OR (site_id, assumeNotNull(user_id)) IN purchase_users)${withoutDeleted(deletions, 'events')}`,
      {},
      [anons, users],
    );
    if (usersOfAnons.length === 0) return [];
    const rows = await clickhouse.query<Omit<BindingRow, 'user_id'> & { bound_user: string }>(
      sql`SELECT site_id, anon_id, assumeNotNull(user_id) AS bound_user, min(ts) AS first_seen, max(ts) AS last_seen FROM events
          WHERE user_id IS NOT NULL AND (site_id, assumeNotNull(user_id)) IN bound_users${withoutDeleted(deletions, 'events')}
          GROUP BY site_id, anon_id, bound_user`,
      {},
      [pairsTable('bound_users', 'user_id', usersOfAnons.map((row) => [row.site_id, row.bound_user]))],
    );
    return rows.map(({ bound_user, ...row }) => ({ ...row, user_id: bound_user }));
  }

  return {
    async conversions(question) {
      const caughtUp = await waitForShipping();
      const { siteIds } = question.scope;
      const deletions = deletionsOf(siteIds);
      const freshness = await freshnessOf(clickhouse, siteIds, caughtUp);
      const maxSeq = question.asOf ?? freshness.position;
      const ranges = await Promise.all(
        question.ranges.map(async (range) => {
          const { rows, more } = await purchasesOf(siteIds, range, maxSeq, deletions);
          const bindings = await bindingsOf(rows, deletions);
          // The user an anon_id was bound to last (then the lowest user_id), and each user's anon_ids, per site.
          const lastUserOf = new Map<string, BindingRow>();
          const anonIdsOf = new Map<string, string[]>();
          for (const binding of bindings) {
            const anonKey = pairKey(binding.site_id, binding.anon_id);
            const current = lastUserOf.get(anonKey);
            if (!current || binding.last_seen > current.last_seen || (binding.last_seen === current.last_seen && binding.user_id < current.user_id)) lastUserOf.set(anonKey, binding);
            const userKey = pairKey(binding.site_id, binding.user_id);
            anonIdsOf.set(userKey, [...(anonIdsOf.get(userKey) ?? []), binding.anon_id]);
          }
          const people = rows.map((row) => {
            const userId = row.user_id ?? lastUserOf.get(pairKey(row.site_id, row.anon_id))?.user_id;
            const anonIds = new Set([row.anon_id, ...(userId === undefined ? [] : (anonIdsOf.get(pairKey(row.site_id, userId)) ?? []))]);
            return { row, userId, anonIds };
          });
          const visitors = people.flatMap(({ row, anonIds }) => [...anonIds].map((anonId) => [row.site_id, anonId] as const));
          const visits =
            visitors.length === 0
              ? []
              : await clickhouse.query<VisitRow>(
                  sql`SELECT site_id, anon_id, start_ts, source, utm_medium, utm_campaign FROM ${signedVisits(
                    sql`(site_id, anon_id) IN visitors AND is_internal = 0
                        AND start_ts >= ${rows.reduce((least, row) => Math.min(least, row.ts), Infinity) - question.lookbackMs} AND start_ts < ${rows.reduce((most, row) => Math.max(most, row.ts), -Infinity)}`,
                    deletions,
                  )}
                      ORDER BY start_ts, anon_id`,
                  {},
                  [pairsTable('visitors', 'anon_id', visitors)],
                );
          const conversions: Conversion[] = people.map(({ row, userId, anonIds }) => ({
            id: row.id,
            siteId: row.site_id,
            ts: row.ts,
            seq: row.seq,
            userId: userId ?? null,
            anonId: row.anon_id,
            revenue: row.revenue_minor !== null && row.revenue_currency !== null ? { minor: row.revenue_minor, currency: row.revenue_currency } : null,
            touchpoints: visits
              .filter((visit) => visit.site_id === row.site_id && anonIds.has(visit.anon_id) && visit.start_ts >= row.ts - question.lookbackMs && visit.start_ts < row.ts)
              .map((visit) => ({ startMs: visit.start_ts, source: visit.source, medium: visit.utm_medium, campaign: visit.utm_campaign })),
          }));
          return { conversions, more };
        }),
      );
      return { asOf: maxSeq, ranges, freshness, computedFrom: 'event_log' as const };
    },
  };
}
