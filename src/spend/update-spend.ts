// PATCH /workspaces/:slug/spend/:id: changes fields of one entry, checked by the same schema as a new entry.
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { ApiError } from '../http/errors.ts';
import type { WorkspaceRow } from '../tenants/queries/find-workspace.ts';
import { type Actor, recordAudit } from '../audit/record-audit.ts';
import { findSpendRow } from './queries/find-spend.ts';
import { updateSpendRow } from './queries/spend-writes.ts';
import { parseSpendBody, SpendEntryBody, type SpendEntry, spendPayloadError, toEntryInput, toSpendEntry } from './spend-entry.ts';
import { siteIdProblems, spendColumnsOf } from './create-spend.ts';

/**
 * An unknown id, or one of another workspace, is 404. A currency change without an amount is refused: the stored
 * minor units mean another amount in another exponent, so the caller says which amount is meant.
 * @example updateSpend(context, actor, workspace, id, { amount: '20.00' })
 */
export function updateSpend(context: AppContext, actor: Actor, workspace: WorkspaceRow, id: string, patch: Record<string, unknown>): SpendEntry {
  return inWriteTransaction(context.db, () => {
    const row = findSpendRow(context.db, workspace.id, id);
    if (!row) throw ApiError.notFound();
    if (patch.currency !== undefined && patch.currency !== row.currency && patch.amount === undefined) {
      throw spendPayloadError([{ path: '/amount', message: 'is required when the currency changes' }]);
    }
    const input = parseSpendBody(SpendEntryBody, { ...toEntryInput(row), ...patch });
    const problems = siteIdProblems(context, workspace, input.site_id, '/site_id');
    if (problems.length > 0) throw spendPayloadError(problems);
    const updated = { ...row, ...spendColumnsOf(input), updated_at: toIso(context.clock.now()) };
    updateSpendRow(context.db, updated);
    recordAudit(context, { workspaceId: workspace.id, actor, action: 'spend.update', target: row.id, metadata: { fields: Object.keys(patch).sort() } });
    return toSpendEntry(updated);
  });
}
