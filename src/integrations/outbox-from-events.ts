// The projector's one call into the integrations: inside its batch transaction (which also saves its position), each
// purchase event of the batch is announced to the endpoints subscribed to event.purchase. The batch commits its
// position and these rows together, so an event is announced exactly once: never lost across a restart (the batch
// rolls back and runs again), never twice (the position has passed it; the row's id would collide anyway).
import { findSite } from '../tenants/queries/find-site.ts';
import { toIso } from '../clock.ts';
import type { Db } from '../db/open.ts';
import type { LoggedEvent } from '../event-store/stored-event.ts';
import { fromMinorUnits } from '../money/minor-units.ts';
import { eventPurchase } from './event-types.ts';
import { announce } from './outbox.ts';

/**
 * @example announceProjectedEvents(db, events, now); // inside projectBatch's transaction
 */
export function announceProjectedEvents(db: Db, events: readonly LoggedEvent[], now: number): void {
  const workspaceOfSite = new Map<string, string | undefined>();
  for (const event of events) {
    if (event.type !== 'purchase' || event.is_bot) continue;
    if (!workspaceOfSite.has(event.site_id)) workspaceOfSite.set(event.site_id, findSite(db, event.site_id)?.workspace_id);
    const workspaceId = workspaceOfSite.get(event.site_id);
    // A deleted site's events are unreachable: nothing is announced for them either.
    if (workspaceId === undefined) continue;
    announce(db, {
      workspaceId,
      type: eventPurchase,
      changeKey: `event:${event.site_id}:${event.id}`,
      now,
      changedAt: event.received_at,
      data: {
        site_id: event.site_id,
        event_id: event.id,
        ts: toIso(event.ts),
        anon_id: event.anon_id,
        user_id: event.user_id,
        revenue:
          event.revenue_minor !== null && event.revenue_currency !== null
            ? { amount: fromMinorUnits(event.revenue_minor, event.revenue_currency), currency: event.revenue_currency }
            : null,
      },
    });
  }
}
