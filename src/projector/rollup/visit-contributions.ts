// Counts or uncounts a whole visit with all of its projected events: takes a visitor out of the rollups (a GDPR
// deletion, src/projector/forget-visitor.ts).
import type { Db } from '../../db/open.ts';
import type { VisitRow } from '../queries/visit-rows.ts';
import { visitDims, visitDimValue } from '../../vocabulary/dimensions.ts';
import { listVisitEvents } from '../queries/visitor-events.ts';
import { countEvent, countVisit, eventDims, eventDimValue, type EventFacts, pageLookup } from './event-contributions.ts';
import type { RollupDelta } from './rollup-delta.ts';

/**
 * sign 1 adds the visit and its events (visitors join the sets); -1 removes them (visitors leave the sets).
 * `projectedThrough`: the projector's position, the last event the visit can hold.
 */
export function countWholeVisit(db: Db, delta: RollupDelta, visit: VisitRow, vid: number, sign: 1 | -1, projectedThrough: number): void {
  countVisit(delta, visit, sign, pageLookup(db));
  const membership = sign === 1 ? 'add' : 'remove';
  const events = listVisitEvents(db, {
    site_id: visit.site_id,
    anon_id: visit.anon_id,
    is_internal: visit.is_internal,
    start_ts: visit.start_ts,
    end_ts: visit.end_ts,
    except_seq: -1,
    max_seq: projectedThrough,
  });
  for (const row of events) {
    const event: EventFacts = { ...row, site_id: visit.site_id, anon_id: visit.anon_id, is_internal: visit.is_internal };
    countEvent(delta, event, eventDims, (dim) => eventDimValue(event, dim as (typeof eventDims)[number]), vid, sign, membership);
    countEvent(delta, event, visitDims, (dim) => visitDimValue(visit, dim as (typeof visitDims)[number]), vid, sign, membership);
  }
}
