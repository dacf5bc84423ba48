// A quarantined event goes through the whole pipeline again (the dead-letter queue's replay, src/dlq/routes.ts):
// with reject semantics, so a still-invalid event is refused instead of quarantined twice, and with the visitor
// context stored beside it, so it is enriched as it would have been when it arrived.
import type { DlqRow } from '../event-store/queries/dlq-rows.ts';
import type { IngestOutcome, IngestPipeline, StoredVisitorContext } from './pipeline.ts';

/** @example await replayQuarantinedEvent(ingest.pipeline, row); // throws the pipeline's refusal */
export function replayQuarantinedEvent(pipeline: IngestPipeline, row: Pick<DlqRow, 'site_id' | 'payload' | 'context'>): Promise<IngestOutcome> {
  return pipeline.ingest({
    siteId: row.site_id,
    bodyText: row.payload,
    channel: 'replay',
    clientIp: null,
    userAgent: null,
    schemaMode: 'reject',
    storedVisitor: JSON.parse(row.context) as StoredVisitorContext,
  });
}
