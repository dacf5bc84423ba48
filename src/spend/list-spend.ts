// GET /workspaces/:slug/spend: the entries of an inclusive day range (at most 366 days), ordered by (date, id),
// paged by an opaque cursor that names the last entry shown.
import type { AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import type { WorkspaceRow } from '../tenants/queries/find-workspace.ts';
import { listSpendRows } from './queries/list-spend.ts';
import { type SpendEntry, toSpendEntry } from './spend-entry.ts';

export interface ListSpendInput {
  from: string;
  to: string;
  source: string | null;
  campaign: string | null;
  limit: number;
  cursor: string | undefined;
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function encodeCursor(day: string, id: string): string {
  return Buffer.from(JSON.stringify([day, id]), 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): { day: string; id: string } {
  try {
    const decoded: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(decoded) && decoded.length === 2 && /^\d{4}-\d{2}-\d{2}$/.test(String(decoded[0])) && uuidPattern.test(String(decoded[1]))) {
      return { day: decoded[0] as string, id: decoded[1] as string };
    }
  } catch {
    // refused below
  }
  throw ApiError.invalidParam([{ path: '/cursor', message: 'is not a cursor this server issued' }]);
}

/** @example listSpend(context, workspace, { from: '2026-01-01', to: '2026-01-31', source: null, campaign: null, limit: 100, cursor: undefined }) */
export function listSpend(context: AppContext, workspace: WorkspaceRow, input: ListSpendInput): { entries: SpendEntry[]; next_cursor: string | null } {
  const after = input.cursor === undefined ? { day: '', id: '' } : decodeCursor(input.cursor);
  const rows = listSpendRows(context.db, {
    workspace_id: workspace.id,
    from_day: input.from,
    to_day: input.to,
    source: input.source,
    campaign: input.campaign,
    after_day: after.day,
    after_id: after.id,
    limit: input.limit + 1,
  });
  const page = rows.slice(0, input.limit);
  const last = page[page.length - 1];
  return { entries: page.map(toSpendEntry), next_cursor: rows.length > input.limit && last ? encodeCursor(last.day, last.id) : null };
}
