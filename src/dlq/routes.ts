// The dead-letter queue: list quarantined events, and replay one through the full ingest pipeline.
import { getQuery, type H3 } from 'h3';
import * as v from 'valibot';
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import { actorOf, recordAudit } from '../audit/record-audit.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { resolveSite } from '../access/resolve-access.ts';
import { ApiError, type ErrorDetail } from '../http/errors.ts';
import { namedInPath, needsCredential, queryParams, refusals } from '../http/refusals.ts';
import { addRoute } from '../http/routes.ts';
import { integerParam, IsoTimestampParam, parseQuery } from '../http/validate.ts';
import { deleteDlqRow, type DlqRow, findDlqRow, listDlqRows } from '../event-store/queries/dlq-rows.ts';
import { DlqListAnswer, DlqReplayAnswer } from './answers.ts';
import { pathParam } from '../http/path-params.ts';

const DlqQuery = v.object({
  limit: v.optional(integerParam(1, 500), '50'),
  cursor: v.optional(IsoTimestampParam),
});

export interface DlqEntry {
  id: string;
  site_id: string;
  /** The original wire JSON: an event object (only events that passed the wire check are quarantined). */
  payload: Record<string, unknown>;
  error: ErrorDetail[];
  received_at: string;
}

/**
 * Runs a quarantined event through the full ingest pipeline with reject semantics; resolves once it committed, throws
 * the pipeline's refusal. The app hands it in (src/ingest/replay-quarantined.ts), so this domain imports no ingest.
 */
export type ReplayQuarantined = (row: DlqRow) => Promise<unknown>;

/** Why a replay failed, for the 502's details: the pipeline's own code first, then its details. */
function replayFailure(error: unknown): ApiError {
  if (error instanceof ApiError && error.status >= 400 && error.status < 500) {
    return new ApiError(502, 'ingest_rejected', `Ingest refused the event (${error.status} ${error.code})`, [
      { path: '', message: `${error.code}: ${error.message}` },
      ...(error.details ?? []),
    ]);
  }
  const reason = error instanceof ApiError ? `${error.status} ${error.code}` : 'unavailable';
  return new ApiError(502, 'ingest_unreachable', `The ingest pipeline is unavailable (${reason}); the row is kept`);
}

export function mountDlq(app: H3, context: AppContext, replay: ReplayQuarantined): void {
  addRoute(app, {
    method: 'GET',
    path: '/sites/:siteId/dlq',
    refusals: refusals(needsCredential, namedInPath, queryParams),
    summary: 'List quarantined events, newest first',
    query: [
      { name: 'limit', description: '1-500, default 50', schema: { type: 'string', pattern: '^\\d+$' } },
      { name: 'cursor', description: 'The next_cursor of the previous page (an ISO-8601 timestamp): rows received strictly before it' },
    ],
    answer: DlqListAnswer,
    handler: (event) => {
      const { site } = resolveSite(event, context, pathParam(event, 'siteId'), { scope: 'admin' });
      const query = parseQuery(DlqQuery, getQuery(event));
      // Without a cursor, start from the newest row: received_at may run a few ms ahead of the clock (it is kept
      // strictly increasing), so "now" would hide the newest rows.
      const before = query.cursor === undefined ? '9999-12-31T23:59:59.999Z' : toIso(query.cursor);
      const rows = listDlqRows(context.db, { site_id: site.id, before, limit: query.limit + 1 });
      const page = rows.slice(0, query.limit);
      return {
        events: page.map((row): DlqEntry => ({
          id: row.id,
          site_id: row.site_id,
          payload: JSON.parse(row.payload) as Record<string, unknown>,
          error: JSON.parse(row.error) as ErrorDetail[],
          received_at: row.received_at,
        })),
        next_cursor: rows.length > query.limit ? page[page.length - 1]!.received_at : null,
      };
    },
  });

  addRoute(app, {
    method: 'POST',
    path: '/sites/:siteId/dlq/:eventId/replay',
    refusals: refusals(needsCredential, namedInPath, { 502: ['ingest_rejected', 'ingest_unreachable'] }),
    summary: 'Replay a quarantined event through the ingest pipeline (reject semantics)',
    answer: DlqReplayAnswer,
    handler: async (event) => {
      const { caller, site } = resolveSite(event, context, pathParam(event, 'siteId'), { scope: 'admin' });
      const row = findDlqRow(context.db, site.id, pathParam(event, 'eventId'));
      if (!row) throw ApiError.notFound();
      try {
        await replay(row);
      } catch (error) {
        throw replayFailure(error);
      }
      // Ingest committed first: if this step is lost, a second replay is acknowledged as a duplicate.
      const replayedAt = toIso(context.clock.now());
      inWriteTransaction(context.db, () => {
        deleteDlqRow(context.db, row.id);
        recordAudit(context, { workspaceId: site.workspace_id, actor: actorOf(caller), action: 'dlq.replay', target: row.id, metadata: { site_id: site.id } });
      }, { eventLog: true });
      return { id: row.id, replayed_at: replayedAt };
    },
  });
}
