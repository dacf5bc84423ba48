// Events of one type in a time span grouped by the value of one of their props (props-v2): events and distinct
// anon_ids per value, the most frequent first. The property is matched as a key of raw's props object (json_each),
// so no JSON path is ever built from input; the sites are bound as a JSON array.
import type { Db } from '../../../db/open.ts';
import { preparedOnce } from '../../../db/statements.ts';
import { type EventFilterParams, eventFilterSql } from './event-filter.ts';

export interface PropValueCountsParams extends EventFilterParams {
  /** JSON array of the scope's site ids. */
  site_ids: string;
  start_ms: number;
  end_ms: number;
  type: string;
  property: string;
  /** Values longer than this are grouped by their first `value_chars` characters. */
  value_chars: number;
  /** One more than the rows shown, to tell whether more exist. */
  row_limit: number;
  /** JSON array of the only event seqs to count (the events of the visits a goal selects), or null for all. */
  only_seqs: string | null;
}

export interface PropValueCountRow {
  value: string;
  events: number;
  visitors: number;
}

// Text as it is; true, false and null by name; numbers as SQLite prints them; objects and arrays as JSON text.
const valueText = `substr(CASE j.type WHEN 'text' THEN j.value WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' WHEN 'null' THEN 'null'
  ELSE CAST(j.value AS TEXT) END, 1, :value_chars)`;

const statements = preparedOnce((db) => ({
  counts: db.prepare<PropValueCountsParams, PropValueCountRow>(
    `SELECT ${valueText} AS value, count(*) AS events, count(DISTINCT e.anon_id) AS visitors
     FROM events e, json_each(CASE WHEN json_valid(e.raw) THEN e.raw END, '$.props') j
     WHERE e.site_id IN (SELECT value FROM json_each(:site_ids)) AND e.ts >= :start_ms AND e.ts < :end_ms
       AND e.type = :type AND j.key = :property AND ${eventFilterSql}
       AND (:only_seqs IS NULL OR e.seq IN (SELECT value FROM json_each(:only_seqs)))
     GROUP BY 1 ORDER BY events DESC, value ASC LIMIT :row_limit`,
  ),
}));

export function countPropValues(db: Db, params: PropValueCountsParams): PropValueCountRow[] {
  return statements(db).counts.all(params);
}
