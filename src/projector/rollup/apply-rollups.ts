// Writes what a group of events changed (a RollupDelta), inside the group's transaction. The changes are staged as
// small additive entries at day grain instead of rewriting counter shards and visitor containers in every commit:
// a group commit appends them to the staging log (one row per site, staging-log.ts), other writers (a rebuild, a
// GDPR deletion) upsert them into the staged tables (report_pending_counters, report_pending_visitors) directly.
// Deltas hold days only: months are the sums of their days, derived by fold-pending.ts (revenue, a few rows, is
// written at once at both). Visitors that may have left a set (visits merged or changed their first event, GDPR
// deletion) are taken out at once, from the stored sets and the staged tables (and logged, to cancel additions
// still in the log), so a report never counts a visitor the raw rows no longer support.
import { CommitSetCache, openCommitCache } from '../../db/commit-caches.ts';
import type { Db } from '../../db/open.ts';
import { Dim, type VisitDim, visitDims } from '../dimensions.ts';
import { Grain, monthOfDay, periodBounds } from '../periods.ts';
import { addPendingCounters, stagedIndexes } from '../../reports/queries/pending-counter-rows.ts';
import { addPendingVisitor } from '../../reports/queries/pending-visitor-rows.ts';
import { addRevenue } from '../queries/revenue-rows.ts';
import { raiseSiteFreshness } from '../../reports/queries/site-freshness-rows.ts';
import { appendStagingLog } from '../../reports/queries/staging-log-rows.ts';
import { findOrInsertValueId, findValueId } from '../queries/value-rows.ts';
import { visitorKeepsValue } from '../queries/visitor-keeps-value.ts';
import { type DeltaEntry, type RollupDelta, type RollupKey } from './rollup-delta.ts';
import { type PeriodAddress, removeFromDaySet, ShardChanges } from './shard-changes.ts';
import { emptyStagingBody, isEmptyStagingBody, type StagingBody, toStagingColumns } from '../../reports/rollup/staging-log.ts';

/** Where staged entries go: the log (group commits) or the staged tables. */
export type StagingTarget = 'log' | 'tables';

/** The log bodies of one flush, by site (undefined when staging into the tables). */
type LogBodies = Map<string, StagingBody> | undefined;

function bodyOf(bodies: Map<string, StagingBody>, site: string): StagingBody {
  let body = bodies.get(site);
  if (!body) bodies.set(site, (body = emptyStagingBody()));
  return body;
}

function isVisitDim(dim: Dim): dim is VisitDim {
  return (visitDims as readonly Dim[]).includes(dim);
}

function periodAddressOf(key: RollupKey): PeriodAddress {
  return { site_id: key.site, dim: key.dim, grain: key.grain, period: key.period, internal: key.internal };
}

function stillQualifies(db: Db, key: RollupKey, anonId: string): boolean {
  if (!isVisitDim(key.dim)) throw new Error(`visitor removal without force on dimension ${key.dim}`);
  const { startMs, endMs } = periodBounds(key);
  return visitorKeepsValue(db, key.dim, key.value, { site_id: key.site, anon_id: anonId, is_internal: key.internal, start_ms: startMs, end_ms: endMs });
}

/**
 * The visitors group commits have put in each day's set, so a returning visitor is not logged again (most events
 * come from visitors already in their day's sets). A removal forgets the visitor (removeLeavers); anything that
 * deletes rollup rows drops the whole cache (src/db/commit-caches.ts).
 */
const knownMembers = (db: Db) => openCommitCache(db, 'visitors in day sets', () => new CommitSetCache(200_000));

function daySetKey(key: RollupKey, valueId: number): string {
  return `${key.site}\u0000${key.dim}\u0000${valueId}\u0000${key.internal}\u0000${key.period}`;
}

/** Stages one day entry: its counter changes and the visitors joining its set. */
function stage(db: Db, entry: DeltaEntry, valueId: number, bodies: LogBodies): void {
  const { key, counters, adds } = entry;
  const changes = stagedIndexes.map((index) => counters[index]!);
  const hasChanges = changes.some((amount) => amount !== 0);
  if (bodies) {
    const body = bodyOf(bodies, key.site);
    if (hasChanges) body.c.push([key.dim, key.internal, key.period, valueId, ...changes]);
    if (!adds || adds.size === 0) return;
    const known = knownMembers(db);
    const setKey = known && daySetKey(key, valueId);
    const joining = known ? [...adds].filter((vid) => !known.has(setKey!, vid)) : [...adds];
    if (joining.length === 0) return;
    for (const vid of joining) known?.add(setKey!, vid);
    body.a.push([key.dim, valueId, key.internal, key.period, ...joining]);
    return;
  }
  if (hasChanges) {
    addPendingCounters(db, { site_id: key.site, dim: key.dim, internal: key.internal, day: key.period, value_id: valueId }, changes);
  }
  if (adds) {
    const set = { site_id: key.site, dim: key.dim, value_id: valueId, internal: key.internal };
    for (const vid of adds) addPendingVisitor(db, set, key.period, vid);
  }
}

/** Takes visitors out of a set, stored and staged, unless their visits still support it. */
function removeLeavers(db: Db, entry: DeltaEntry, changes: ShardChanges, bodies: LogBodies): void {
  const { key, removals, forceRemoval } = entry;
  if (!removals) return;
  const valueId = findValueId(db, key.site, key.dim, key.value);
  if (valueId === undefined) return;
  const leaving = [...removals].filter(([, anonId]) => forceRemoval || !stillQualifies(db, key, anonId)).map(([vid]) => vid);
  if (leaving.length === 0) return;
  removeFromDaySet(db, periodAddressOf(key), valueId, leaving, changes);
  const known = knownMembers(db);
  const setKey = known && daySetKey(key, valueId);
  for (const vid of leaving) known?.delete(setKey!, vid);
  if (bodies) bodyOf(bodies, key.site).r.push([key.dim, valueId, key.internal, key.period, ...leaving]);
}

/**
 * Writes the delta; call inside the transaction that stored the events it describes. Returns how many day
 * entries it staged.
 * @example flushRollups(db, delta, 'log');
 */
export function flushRollups(db: Db, delta: RollupDelta, target: StagingTarget = 'tables'): number {
  if (delta.isEmpty) return 0;
  const bodies: LogBodies = target === 'log' ? new Map() : undefined;
  let staged = 0;
  const ids = new Map<string, number>();
  const valueIdOf = (key: RollupKey): number => {
    const text = `${key.site}\u0000${key.dim}\u0000${key.value}`;
    let id = ids.get(text);
    if (id === undefined) ids.set(text, (id = findOrInsertValueId(db, key.site, key.dim, key.value)));
    return id;
  };
  // Additions first: removals are then checked against the raw rows, which already hold this group's events.
  for (const entry of delta.entries()) {
    stage(db, entry, valueIdOf(entry.key), bodies);
    staged++;
  }
  const changes = new ShardChanges();
  for (const entry of delta.entries()) if (entry.removals) removeLeavers(db, entry, changes, bodies);
  changes.write(db);
  if (bodies) {
    for (const [site, body] of bodies) {
      if (isEmptyStagingBody(body)) continue;
      const columns = toStagingColumns(body);
      appendStagingLog(db, site, columns.body, columns.removals);
    }
  }
  // Revenue is few rows (purchases only): written at once, at the day and at its month.
  for (const { key, revenue } of delta.entries()) {
    if (!revenue) continue;
    const day = periodAddressOf(key);
    for (const at of [day, { ...day, grain: Grain.month, period: monthOfDay(key.period) }]) {
      for (const [currency, amountMinor] of revenue) {
        if (amountMinor !== 0) addRevenue(db, { ...at, value_id: valueIdOf(key), currency, amount_minor: amountMinor });
      }
    }
  }
  for (const [site, { maxSeq, maxReceivedAt }] of delta.freshness) raiseSiteFreshness(db, { site_id: site, max_seq: maxSeq, max_received_at: maxReceivedAt });
  return staged;
}
