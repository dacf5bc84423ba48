// A stored event's row as every implementation's timelines show it (TimelineEvent): one mapping from the stored
// columns, whichever store the row came from (the embedded log, or ClickHouse's unshipped tail of it).
import type { VisitorTimelineRow } from '../projector/queries/visitor-events.ts';
import type { TimelineEvent } from './person-questions.ts';

export function toTimelineEvent(row: VisitorTimelineRow): TimelineEvent {
  return {
    position: row.seq,
    id: row.id,
    type: row.type,
    tsMs: row.ts,
    anonId: row.anon_id,
    country: row.country,
    city: row.city,
    browser: row.browser,
    os: row.os,
    deviceType: row.device_type as TimelineEvent['deviceType'],
    raw: row.raw,
  };
}
