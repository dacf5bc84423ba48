// GET /workspaces/:slug/audit: limit 1-1000 (default 100), cursor an ISO timestamp (default now), newest first.
import { getQuery, getRouterParam, type H3Event } from 'h3';
import * as v from 'valibot';
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import { resolveWorkspace } from '../access/resolve-access.ts';
import { integerParam, IsoTimestampParam, parseQuery } from '../http/validate.ts';
import { listAuditEntries } from './queries/list-audit-entries.ts';

const AuditQuery = v.object({
  limit: v.optional(integerParam(1, 1000), '100'),
  cursor: v.optional(IsoTimestampParam),
});

export interface AuditEntry {
  id: string;
  workspace_id: string;
  actor_kind: 'admin' | 'apiKey' | 'user' | 'system';
  actor_id: string | null;
  action: string;
  target: string | null;
  metadata: Record<string, unknown>;
  ts: string;
}

export interface AuditPage {
  entries: AuditEntry[];
  next_cursor: string | null;
}

/** Without `beforeMs` the page starts at the newest row: "default now" must not hide rows committed this millisecond. */
export function listAudit(context: AppContext, workspaceId: string, limit: number, beforeMs?: number): AuditPage {
  const rows = listAuditEntries(context.db, { workspaceId, before: beforeMs === undefined ? null : toIso(beforeMs), limit: limit + 1 });
  const page = rows.slice(0, limit);
  return {
    entries: page.map((row) => ({ ...row, metadata: JSON.parse(row.metadata) as Record<string, unknown> })),
    next_cursor: rows.length > limit ? page[page.length - 1]!.ts : null,
  };
}

export function handleListAudit(context: AppContext) {
  return (event: H3Event): AuditPage => {
    const { workspace } = resolveWorkspace(event, context, getRouterParam(event, 'slug') ?? '', { scope: 'admin' });
    const query = parseQuery(AuditQuery, getQuery(event));
    // Audit timestamps are bumped past the newest row when two mutations share a millisecond, so the newest rows
    // may carry a timestamp slightly ahead of the clock; a default cursor of "now" would hide exactly those.
    return listAudit(context, workspace.id, query.limit, query.cursor);
  };
}
