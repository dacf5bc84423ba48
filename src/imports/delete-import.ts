// Removes an import whole, through the projector's module, as a GDPR deletion does: in one transaction that locks
// both files, each visitor of the import's events is taken out of everything derived (forgetVisitor), then the
// import's events (its recorded seq ranges) are deleted. Imported visitors carry the source's ids, so they are not
// the site's live visitors (docs/import-export.md says what happens when one is).
import type { AppContext } from '../context.ts';
import { type Actor, recordAudit } from '../audit/record-audit.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { anonIdsInSeqRange, deleteEventsInSeqRange } from '../event-store/queries/seq-range-events.ts';
import { ApiError } from '../http/errors.ts';
import { forgetVisitor } from '../projector/forget-visitor.ts';
import type { SiteRow } from '../tenants/queries/find-site.ts';
import { deleteImportEventRanges, listImportEventRanges } from './queries/import-event-ranges.ts';
import { deleteImportRow, findImport } from './queries/import-rows.ts';
import { deleteImportedDailyOfImport } from './queries/imported-daily-rows.ts';

/** 404 for an unknown import; 409 while it runs. Audited (import.delete) in the same transaction. */
export function deleteImport(context: AppContext, actor: Actor, site: SiteRow, importId: string): { id: string; deleted_events: number } {
  const db = context.db;
  return inWriteTransaction(
    db,
    () => {
      const row = findImport(db, site.id, importId);
      if (!row) throw ApiError.notFound();
      if (row.status === 'queued' || row.status === 'running') throw ApiError.conflict('import_running', 'The import is still running: delete it once it is done or failed');
      const ranges = listImportEventRanges(db, importId).map((range) => ({ site_id: site.id, first_seq: range.first_seq, last_seq: range.last_seq }));
      const visitors = new Set<string>();
      for (const range of ranges) for (const anonId of anonIdsInSeqRange(db, range)) visitors.add(anonId);
      for (const anonId of visitors) forgetVisitor(db, site.id, anonId);
      let deleted = 0;
      for (const range of ranges) deleted += deleteEventsInSeqRange(db, range);
      // Plausible's import brought daily figures, not events.
      deleted += deleteImportedDailyOfImport(db, importId);
      deleteImportEventRanges(db, importId);
      deleteImportRow(db, site.id, importId);
      recordAudit(context, { workspaceId: site.workspace_id, actor, action: 'import.delete', target: importId, metadata: { site_id: site.id, format: row.format, events: deleted } });
      return { id: importId, deleted_events: deleted };
    },
    { eventLog: true },
  );
}
