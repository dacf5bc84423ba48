// GDPR export and deletion of one subject on one site. The deletion goes through the projector's module
// (forgetVisitor): in one transaction that locks both files from its start, each of the subject's visitors is taken
// out of everything derived (its share of every rollup subtracted), then its events and DLQ rows are deleted. Holding
// sightline.db's write lock, no projector batch interleaves; the events the projector has not reached yet are deleted
// before it does, so they are never counted. Reports therefore stop counting the subject without a rebuild.
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import type { Actor } from '../audit/record-audit.ts';
import { recordAudit } from '../audit/record-audit.ts';
import type { SiteRow } from '../tenants/queries/find-site.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { deleteDlqRow, listDlqRowsOfSubject } from '../event-store/queries/dlq-rows.ts';
import { deleteEventsBySeq } from '../event-store/queries/event-rows.ts';
import { ApiError, type ErrorDetail } from '../http/errors.ts';
import { forgetVisitor } from '../projector/forget-visitor.ts';
import { recordSubjectDeletion } from '../clickhouse/deletions.ts';
import type { ShippedSubjectEvents } from '../clickhouse/subject-events.ts';
import { forgetSubjectWebhooks } from '../integrations/forget-subject.ts';
import { listVisitorLogEvents, listVisitorLogSeqs, type VisitorLogEventRow } from '../projector/queries/visitor-log-events.ts';
import type { ExportedEventAnswer, GdprDeleteAnswer, GdprExportAnswer } from './answers.ts';
import { anonIdsOfSubject, bindingsOf, type GdprSubject, subjectDigest, subjectKind } from './subject.ts';
import type * as v from 'valibot';

/**
 * The most events one export answers: about 1,000 bytes each as JSON, so at most about 50 MB. A subject with more
 * (a crawler's anon_id, not a person) is refused with 413; its deletion has no such limit.
 */
export const gdprExportMaxEvents = 50_000;

type ExportedEvent = v.InferOutput<typeof ExportedEventAnswer>;

function toExportedEvent(row: VisitorLogEventRow): ExportedEvent {
  return {
    id: row.id,
    type: row.type,
    ts: toIso(row.ts),
    received_at: toIso(row.received_at),
    anon_id: row.anon_id,
    user_id: row.user_id,
    country: row.country,
    region: row.region,
    city: row.city,
    browser: row.browser,
    os: row.os,
    device_type: row.device_type,
    is_bot: row.is_bot === 1,
    is_internal: row.is_internal === 1,
    raw: JSON.parse(row.raw) as Record<string, unknown>,
  };
}

const userIdOf = (subject: GdprSubject) => ('user_id' in subject ? subject.user_id : null);

/** Everything stored of the subject on the site; audited (gdpr.export) in the transaction that reads it. */
export async function exportSubject(
  context: AppContext,
  actor: Actor,
  site: SiteRow,
  subject: GdprSubject,
  shippedEventsOf?: ShippedSubjectEvents,
): Promise<v.InferOutput<typeof GdprExportAnswer>> {
  // With ClickHouse, the events LOG_RETAIN_DAYS trimmed from the log are only there: read first (no transaction
  // waits on the network), then added to the log's by seq (an event in both counts once).
  const shipped = shippedEventsOf ? await shippedEventsOf(site.id, anonIdsOfSubject(context.db, site.id, subject), gdprExportMaxEvents + 1) : [];
  return inWriteTransaction(context.db, () => {
    const anonIds = anonIdsOfSubject(context.db, site.id, subject);
    const rows: VisitorLogEventRow[] = [];
    const tooMany = () => new ApiError(413, 'payload_too_large', `The subject has more than ${gdprExportMaxEvents} events: too many for one export`);
    for (const anonId of anonIds) {
      rows.push(...listVisitorLogEvents(context.db, { site_id: site.id, anon_id: anonId }, gdprExportMaxEvents + 1 - rows.length));
      if (rows.length > gdprExportMaxEvents) throw tooMany();
    }
    const inLog = new Set(rows.map((row) => row.seq));
    for (const row of shipped) if (!inLog.has(row.seq) && anonIds.includes(row.anon_id)) rows.push(row);
    if (rows.length > gdprExportMaxEvents) throw tooMany();
    const events = rows.sort((a, b) => a.ts - b.ts || a.seq - b.seq).map(toExportedEvent);
    const quarantined = listDlqRowsOfSubject(context.db, site.id, anonIds, userIdOf(subject)).map((row) => ({
      id: row.id,
      payload: JSON.parse(row.payload) as Record<string, unknown>,
      error: JSON.parse(row.error) as ErrorDetail[],
      received_at: row.received_at,
    }));
    // An anon_id subject names itself only when something of it is stored.
    const identities = 'anon_id' in subject && events.length === 0 && bindingsOf(context.db, site.id, anonIds).size === 0 ? [] : anonIds;
    recordAudit(context, {
      workspaceId: site.workspace_id,
      actor,
      action: 'gdpr.export',
      target: subjectDigest(subject),
      metadata: { site_id: site.id, subject_kind: subjectKind(subject), events: events.length, identities: identities.length, quarantined: quarantined.length },
    });
    return { subject, identities, events, quarantined };
  });
}

/**
 * Deletes the subject's events, identity bindings, visits, visitor index rows and numbers, DLQ rows and its share of
 * every rollup; a second call finds nothing and answers zeros. Audited (gdpr.delete) in the same transaction.
 */
export function deleteSubject(context: AppContext, actor: Actor, site: SiteRow, subject: GdprSubject): v.InferOutput<typeof GdprDeleteAnswer> {
  const db = context.db;
  return inWriteTransaction(
    db,
    () => {
      const anonIds = anonIdsOfSubject(db, site.id, subject);
      const bindings = bindingsOf(db, site.id, anonIds);
      // Found before forgetting: forgetVisitor reads the events to subtract them and drops the index that finds them.
      const seqs = anonIds.flatMap((anonId) => listVisitorLogSeqs(db, { site_id: site.id, anon_id: anonId }));
      for (const anonId of anonIds) forgetVisitor(db, site.id, anonId);
      // ClickHouse's copies stop counting at once and are deleted by a mutation later (docs/clickhouse.md); recorded
      // before the events go, while the newest seq still counts theirs.
      if (context.config.clickhouse) recordSubjectDeletion(db, site.id, anonIds, context.clock.now());
      const deletedEvents = deleteEventsBySeq(db, seqs);
      const dlqRows = listDlqRowsOfSubject(db, site.id, anonIds, userIdOf(subject));
      for (const row of dlqRows) deleteDlqRow(db, row.id);
      // The bridge's lead signals of the user and the webhook deliveries naming the subject (pending ones are not sent).
      const webhooks = forgetSubjectWebhooks(db, { workspaceId: site.workspace_id, userId: userIdOf(subject), anonIds });
      recordAudit(context, {
        workspaceId: site.workspace_id,
        actor,
        action: 'gdpr.delete',
        target: subjectDigest(subject),
        metadata: {
          site_id: site.id,
          subject_kind: subjectKind(subject),
          events: deletedEvents,
          identities: bindings.size,
          quarantined: dlqRows.length,
          bridge_actions: webhooks.actions,
          webhook_deliveries: webhooks.deliveries,
        },
      });
      return { deleted_events: deletedEvents, deleted_identities: bindings.size };
    },
    { eventLog: true },
  );
}
