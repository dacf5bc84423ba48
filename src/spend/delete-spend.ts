// DELETE /workspaces/:slug/spend: removes the entries of a day range, optionally of one source and/or campaign.
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import type { WorkspaceRow } from '../tenants/queries/find-workspace.ts';
import { type Actor, recordAudit } from '../audit/record-audit.ts';
import { deleteSpendRange } from './queries/spend-writes.ts';

export interface DeleteSpendInput {
  from: string;
  to: string;
  source: string | null;
  campaign: string | null;
}

/**
 * Audited even when nothing matched (the request was made; metadata says how many rows went).
 * @example deleteSpend(context, actor, workspace, { from: '2026-01-01', to: '2026-01-31', source: 'google', campaign: null }) // { deleted: 31 }
 */
export function deleteSpend(context: AppContext, actor: Actor, workspace: WorkspaceRow, input: DeleteSpendInput): { deleted: number } {
  return inWriteTransaction(context.db, () => {
    const deleted = deleteSpendRange(context.db, { workspace_id: workspace.id, from_day: input.from, to_day: input.to, source: input.source, campaign: input.campaign });
    recordAudit(context, { workspaceId: workspace.id, actor, action: 'spend.delete', target: null, metadata: { ...input, deleted } });
    return { deleted };
  });
}
