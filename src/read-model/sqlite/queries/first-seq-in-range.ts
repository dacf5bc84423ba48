// Where a site's events of a time span start in ingest order: list-v2's first page scans from there, not from the
// site's first event.
import type { Db } from '../../../db/open.ts';
import { preparedOnce } from '../../../db/statements.ts';

export interface FirstSeqInRangeParams {
  site_id: string;
  start_ms: number;
  end_ms: number;
}

const statements = preparedOnce((db) => ({
  // Reads only the (site_id, ts) index: seq is the rowid every index entry carries.
  first: db.prepare<FirstSeqInRangeParams, number | null>('SELECT min(seq) FROM events WHERE site_id = :site_id AND ts >= :start_ms AND ts < :end_ms').pluck(),
}));

/** The smallest seq of the site's events with start_ms <= ts < end_ms, or undefined when there is none. */
export function findFirstSeqInRange(db: Db, params: FirstSeqInRangeParams): number | undefined {
  return (statements(db).first.get(params) as number | null) ?? undefined;
}
