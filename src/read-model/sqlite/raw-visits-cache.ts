// The last raw visits loaded, kept for the next report over the same sites, days and traffic: a dashboard asks for
// a dozen reports of one selection at once (a filter click), and those the rollups cannot answer all start from the
// same raw visits. An entry is used only while nothing was written to either database file since it was loaded
// (data_version for the other connections' commits, total_changes() for this connection's), so a GDPR deletion, a
// retention purge or a newly projected event is never missed.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';
import type { RawVisit, RawVisitsInput } from './raw-visits.ts';

/** Entries kept: the current selection and the one before it (a filter click and its undo). */
const maxEntries = 2;
/** A window with more events than this is not kept: its visits would hold too much memory for too little gain. */
export const maxCachedEvents = 200_000;

interface Entry {
  key: string;
  writes: string;
  visits: RawVisit[];
}

const caches = new WeakMap<Db, Entry[]>();
const ownChanges = preparedOnce((db) => db.prepare<[], number>('SELECT total_changes()').pluck());

/** What has been written to the two files, as far as this connection can tell. */
function writesSeen(db: Db): string {
  const main = db.pragma('main.data_version', { simple: true });
  const log = db.pragma('eventlog.data_version', { simple: true });
  const own = ownChanges(db).get();
  return `${main}|${log}|${own}`;
}

/**
 * The raw visits of `input`, from the cache when nothing was written since they were loaded, else from `load`.
 * @example const visits = cachedRawVisits(db, input, () => loadRawVisits(db, input));
 */
export function cachedRawVisits(db: Db, input: RawVisitsInput, load: () => RawVisit[]): RawVisit[] {
  if (input.visitors) return load();
  const key = JSON.stringify([input.siteIds, input.fromDay, input.toDay, input.withInternal, input.maxSeq]);
  const writes = writesSeen(db);
  const entries = (caches.get(db) ?? []).filter((entry) => entry.writes === writes);
  const found = entries.find((entry) => entry.key === key);
  if (found) {
    caches.set(db, [found, ...entries.filter((entry) => entry !== found)]);
    return found.visits;
  }
  const visits = load();
  const events = visits.reduce((sum, visit) => sum + visit.events.length, 0);
  caches.set(db, events > maxCachedEvents ? entries : [{ key, writes, visits }, ...entries].slice(0, maxEntries));
  return visits;
}
