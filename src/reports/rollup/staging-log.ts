// The staging log: what a group commit changes in the rollups, as one JSON row per site, appended in the commit.
// Appending one row writes a page or two where upserting each staged entry wrote dozens (every dimension's
// entries sit on other pages of the staged tables): the commit is the ingest path's costliest step, and its cost
// grows with the pages it writes. The writer moves log rows into the staged tables when idle, many commits at a
// time, so those pages are written once per slice instead of once per commit (docs/reports.md).
import type { Db } from '../../db/open.ts';
import { Grain } from '../periods.ts';
import { addPendingCounters } from '../queries/pending-counter-rows.ts';
import { addPendingVisitor } from '../queries/pending-visitor-rows.ts';
import { deleteStagingLogThrough, listOldestStagingLog } from '../queries/staging-log-rows.ts';
import { removeFromDaySet, ShardChanges } from './shard-changes.ts';

/**
 * One log row. Additions come before removals: a removal cancels an addition of the same or an earlier row.
 * - c: staged counter changes, [dim, internal, day, value_id, ...one amount per staged field]
 * - a: visitors joining a day's set, [dim, value_id, internal, day, ...vids]
 * - r: visitors leaving it, same shape (already taken out of the staged tables and stored sets in the commit)
 */
export interface StagingBody {
  c: number[][];
  a: number[][];
  r: number[][];
}

export function emptyStagingBody(): StagingBody {
  return { c: [], a: [], r: [] };
}

export function isEmptyStagingBody(body: StagingBody): boolean {
  return body.c.length + body.a.length + body.r.length === 0;
}

/** How many staged entries a body holds: counter rows and visitor numbers. */
function entriesOf(body: StagingBody): number {
  let entries = body.c.length;
  for (const set of body.a) entries += set.length - 4;
  for (const set of body.r) entries += set.length - 4;
  return entries;
}

/** Rows read per query while moving. */
const rowsPerRead = 32;

/**
 * Moves the oldest log rows into the staged tables, one whole row at a time, until about `maxEntries` entries were
 * moved. Removals are applied again (an addition moved and folded after the commit that removed it would
 * otherwise stay). Call inside a write transaction; returns the entries moved and whether rows remain.
 * @example inWriteTransaction(db, () => moveStagingLog(db, 1000));
 */
export function moveStagingLog(db: Db, maxEntries: number): { entries: number; more: boolean } {
  const rows = listOldestStagingLog(db, rowsPerRead);
  const changes = new ShardChanges();
  let entries = 0;
  let moved = 0;
  for (const row of rows) {
    const body = JSON.parse(row.body) as StagingBody;
    const site_id = row.site_id;
    for (const [dim, internal, day, value_id, ...amounts] of body.c) addPendingCounters(db, { site_id, dim: dim!, internal: internal!, day: day!, value_id: value_id! }, amounts);
    for (const [dim, value_id, internal, day, ...vids] of body.a) {
      const set = { site_id, dim: dim!, value_id: value_id!, internal: internal! };
      for (const vid of vids) addPendingVisitor(db, set, day!, vid);
    }
    for (const [dim, value_id, internal, day, ...vids] of body.r) {
      removeFromDaySet(db, { site_id, dim: dim!, grain: Grain.day, period: day!, internal: internal! }, value_id!, vids, changes);
    }
    entries += entriesOf(body);
    moved++;
    if (entries >= maxEntries) break;
  }
  changes.write(db);
  if (moved > 0) deleteStagingLogThrough(db, rows[moved - 1]!.seq);
  return { entries, more: moved < rows.length || rows.length === rowsPerRead };
}

/** Moves the whole log (inside the caller's write transaction). */
export function moveAllStagingLog(db: Db): number {
  let entries = 0;
  for (;;) {
    const step = moveStagingLog(db, Infinity);
    entries += step.entries;
    if (!step.more) return entries;
  }
}
