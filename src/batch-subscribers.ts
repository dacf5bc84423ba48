// Who hears what a projector batch projected, composed once for both places the projector runs: its thread's entry
// (src/projector-thread.ts) and inline on the HTTP thread (src/app.ts). Each runs inside the batch's transaction, so
// what it writes commits with the projector's position: once per event, never lost, never twice.
import { announceProjectedEvents } from './integrations/outbox-from-events.ts';
import type { BatchSubscriber } from './projector/project-batch.ts';
import { writeVisitSequences } from './projector/visit-sequences.ts';

export const batchSubscribers: readonly BatchSubscriber[] = [
  // Outbound webhooks of purchases (docs/integrations.md).
  announceProjectedEvents,
  // Each changed visit's page sequence, which journeys and page flow read (src/projector/visit-sequences.ts).
  writeVisitSequences,
];
