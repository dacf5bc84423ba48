// One event of a funnel's attempt, by seq: the columns the population does not hold. A funnel reads its step events
// column by column through the projector's visitor numbers (funnel-rows.ts); the correlation's context of an attempt
// (../attempt-events.ts) then reads, for each person at its transition, the first step's event here.
import type { Db } from '../../../db/open.ts';
import { preparedOnce } from '../../../db/statements.ts';

/** The enrichment columns, anon_id and path of an event. */
export interface FunnelEventDetails {
  site_id: string;
  anon_id: string;
  path: string | null;
  is_internal: 0 | 1;
  source: string;
  utm_campaign: string | null;
  device_type: string | null;
  browser: string | null;
  os: string | null;
  country: string | null;
  region: string | null;
  city: string | null;
}

const detailsStatement = preparedOnce((db) =>
  db.prepare<[number], FunnelEventDetails>(
    'SELECT site_id, anon_id, path, is_internal, source, utm_campaign, device_type, browser, os, country, region, city FROM events WHERE seq = ?',
  ),
);

/**
 * The event's details (the first step of a person's attempt, for the correlation's factors).
 * @example readFunnelEventDetails(db, 120)?.browser // 'Firefox'
 */
export function readFunnelEventDetails(db: Db, seq: number): FunnelEventDetails | undefined {
  return detailsStatement(db).get(seq);
}
