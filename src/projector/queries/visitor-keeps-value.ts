// Does a visitor still have a visit with a given dimension value overlapping a period? Decides whether a
// visitor leaves a visit dimension's set after its visits merged or changed their first event.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';
import { Dim, parseCampaignKey, type VisitDim, visitDimColumns } from '../../vocabulary/dimensions.ts';

export interface VisitorKeepsValueParams {
  site_id: string;
  anon_id: string;
  is_internal: number;
  start_ms: number;
  end_ms: number;
}

const overlapping =
  'site_id = :site_id AND anon_id = :anon_id AND is_internal = :is_internal AND start_ts < :end_ms AND end_ts >= :start_ms';

const statements = preparedOnce((db) => {
  // Columns come from the fixed allow-list of visit dimensions, never from input.
  const byDim = new Map<VisitDim, ReturnType<typeof db.prepare>>();
  for (const [dim, columns] of Object.entries(visitDimColumns)) {
    const matches = columns.map((column, index) => `${column} IS :v${index}`).join(' AND ');
    byDim.set(Number(dim) as VisitDim, db.prepare(`SELECT 1 FROM sessions WHERE ${overlapping} AND ${matches} LIMIT 1`));
  }
  return { byDim };
});

export function visitorKeepsValue(db: Db, dim: VisitDim, value: string, params: VisitorKeepsValueParams): boolean {
  const values = dim === Dim.campaign ? parseCampaignKey(value) : [value];
  const named = Object.fromEntries(values.map((item, index) => [`v${index}`, item]));
  return statements(db).byDim.get(dim)!.get({ ...params, ...named }) !== undefined;
}
