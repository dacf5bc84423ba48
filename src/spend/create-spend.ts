// POST /workspaces/:slug/spend: one entry or an array of them, all in one transaction with one audit row.
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import type { ErrorDetail } from '../http/errors.ts';
import { findSite } from '../tenants/queries/find-site.ts';
import type { WorkspaceRow } from '../tenants/queries/find-workspace.ts';
import { type Actor, recordAudit } from '../audit/record-audit.ts';
import { insertSpendRow, type SpendRow } from './queries/spend-writes.ts';
import { amountMinorOf, type SpendEntry, type SpendEntryInput, spendPayloadError, toSpendEntry } from './spend-entry.ts';

/** A site_id must name a site of the workspace; a foreign site is refused exactly like a missing one. */
export function siteIdProblems(context: AppContext, workspace: WorkspaceRow, siteId: string | null, path: string): ErrorDetail[] {
  if (siteId === null) return [];
  const site = findSite(context.db, siteId);
  return site && site.workspace_id === workspace.id ? [] : [{ path, message: 'must be a site of this workspace' }];
}

/** The stored columns a checked entry sets (a new row and an update alike). */
export function spendColumnsOf(input: SpendEntryInput): Pick<SpendRow, 'site_id' | 'day' | 'source' | 'medium' | 'campaign' | 'amount_minor' | 'currency'> {
  return {
    site_id: input.site_id,
    day: input.date,
    source: input.source,
    medium: input.medium,
    campaign: input.campaign,
    amount_minor: amountMinorOf(input),
    currency: input.currency,
  };
}

/** Builds the stored row of a checked entry. */
export function toSpendRow(context: AppContext, workspace: WorkspaceRow, input: SpendEntryInput, now: string): SpendRow {
  return { id: context.random.uuid(), workspace_id: workspace.id, ...spendColumnsOf(input), created_at: now, updated_at: now };
}

/**
 * Stores every entry or none (an unknown site in any entry refuses the whole request).
 * @example createSpend(context, actor, workspace, [entry]) // → [{ id, date, …, amount: '12.50', currency: 'USD' }]
 */
export function createSpend(context: AppContext, actor: Actor, workspace: WorkspaceRow, inputs: SpendEntryInput[], batch: boolean): SpendEntry[] {
  return inWriteTransaction(context.db, () => {
    const problems = inputs.flatMap((input, index) => siteIdProblems(context, workspace, input.site_id, batch ? `/${index}/site_id` : '/site_id'));
    if (problems.length > 0) throw spendPayloadError(problems);
    const now = toIso(context.clock.now());
    const rows = inputs.map((input) => toSpendRow(context, workspace, input, now));
    for (const row of rows) insertSpendRow(context.db, row);
    recordAudit(context, {
      workspaceId: workspace.id,
      actor,
      action: 'spend.create',
      target: rows.length === 1 ? rows[0]!.id : null,
      metadata: { entries: rows.length },
    });
    return rows.map(toSpendEntry);
  });
}
