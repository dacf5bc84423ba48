// The staging log: what a group commit changes in the rollups, as one JSON row per site, appended in the commit.
// Appending one row writes a page or two where upserting each staged entry wrote dozens (every dimension's
// entries sit on other pages of the staged tables): the commit is the ingest path's costliest step, and its cost
// grows with the pages it writes. The writer moves log rows into the staged tables when idle, many commits at a
// time, so those pages are written once per slice instead of once per commit (docs/reports.md). A removal
// cancels every earlier addition of the same visitor to the same set: moving skips additions that a later row's
// removal cancels, so the staged tables never hold what the log still takes back.
import type { Db } from '../../db/open.ts';
import { Grain } from '../../projector/periods.ts';
import { addPendingCounters } from '../queries/pending-counter-rows.ts';
import { addPendingVisitor } from '../queries/pending-visitor-rows.ts';
import { deleteStagingLogThrough, listOldestStagingLog, listStagingRemovalsAfter, type StagingLogRow } from '../queries/staging-log-rows.ts';
import { removeFromDaySet, ShardChanges } from '../../projector/rollup/shard-changes.ts';

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

/** A body as stored: counter changes and additions in one column, removals (when any) in another. */
export function toStagingColumns(body: StagingBody): { body: string; removals: string | null } {
  return { body: JSON.stringify({ c: body.c, a: body.a }), removals: body.r.length > 0 ? JSON.stringify(body.r) : null };
}

export function parseStagingRow(row: Pick<StagingLogRow, 'body' | 'removals'>): StagingBody {
  const { c, a } = JSON.parse(row.body) as Omit<StagingBody, 'r'>;
  return { c, a, r: row.removals === null ? [] : (JSON.parse(row.removals) as number[][]) };
}

/** (dim, value id, traffic kind, day, visitor) of a set membership. */
function membershipKey(dim: number, valueId: number, internal: number, day: number, vid: number): string {
  return `${dim}|${valueId}|${internal}|${day}|${vid}`;
}

/** The memberships that rows of a site appended after `seq` take back. */
function removedLater(db: Db, siteId: string, seq: number): Set<string> {
  const removed = new Set<string>();
  for (const text of listStagingRemovalsAfter(db, siteId, seq)) {
    for (const [dim, valueId, internal, day, ...vids] of JSON.parse(text) as number[][]) {
      for (const vid of vids) removed.add(membershipKey(dim!, valueId!, internal!, day!, vid));
    }
  }
  return removed;
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
  const slice: { row: StagingLogRow; body: StagingBody }[] = [];
  let entries = 0;
  for (const row of rows) {
    const body = parseStagingRow(row);
    slice.push({ row, body });
    entries += entriesOf(body);
    if (entries >= maxEntries) break;
  }
  if (slice.length === 0) return { entries: 0, more: false };
  const lastSeq = slice[slice.length - 1]!.row.seq;
  const removedBySite = new Map<string, Set<string>>();
  const changes = new ShardChanges();
  for (const { row, body } of slice) {
    const site_id = row.site_id;
    let removed = removedBySite.get(site_id);
    if (!removed) removedBySite.set(site_id, (removed = removedLater(db, site_id, lastSeq)));
    for (const [dim, internal, day, value_id, ...amounts] of body.c) addPendingCounters(db, { site_id, dim: dim!, internal: internal!, day: day!, value_id: value_id! }, amounts);
    for (const [dim, value_id, internal, day, ...vids] of body.a) {
      const set = { site_id, dim: dim!, value_id: value_id!, internal: internal! };
      for (const vid of vids) if (!removed.has(membershipKey(dim!, value_id!, internal!, day!, vid))) addPendingVisitor(db, set, day!, vid);
    }
    for (const [dim, value_id, internal, day, ...vids] of body.r) {
      removeFromDaySet(db, { site_id, dim: dim!, grain: Grain.day, period: day!, internal: internal! }, value_id!, vids, changes);
    }
  }
  changes.write(db);
  deleteStagingLogThrough(db, lastSeq);
  return { entries, more: slice.length < rows.length || rows.length === rowsPerRead };
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
