// Workspace actions shared by the HTTP routes and the CLI: create, list, read, rename, the second-factor rule.
import * as v from 'valibot';
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { ApiError } from '../http/errors.ts';
import { afterParams, decodePageCursor, toPage } from '../http/pagination.ts';
import { TrimmedName } from '../http/validate.ts';
import { type Actor, recordAudit } from '../audit/record-audit.ts';
import { findWorkspaceBySlug, type WorkspaceRow } from '../tenants/queries/find-workspace.ts';
import { listWorkspaceRows } from '../tenants/queries/list-workspaces.ts';
import { insertWorkspace, renameWorkspace } from '../tenants/queries/workspace-writes.ts';
import { requiresSecondFactor, writeSecondFactorRule } from '../users/two-factor-rule.ts';

export const WorkspaceSlug = v.pipe(
  v.string('must be a string'),
  v.regex(/^[a-z][a-z0-9-]{0,63}$/, 'must match ^[a-z][a-z0-9-]{0,63}$'),
);

export const CreateWorkspaceBody = v.object({ name: TrimmedName, slug: WorkspaceSlug });
export type CreateWorkspaceInput = v.InferOutput<typeof CreateWorkspaceBody>;

export const UpdateWorkspaceBody = v.pipe(
  v.object({ name: v.optional(TrimmedName), slug: v.optional(v.unknown()), require_2fa: v.optional(v.boolean('must be true or false')) }),
  // Forwarded so each refusal points at its field (/slug, /name) rather than at the whole body.
  v.forward(v.check((body) => body.slug === undefined, 'slug cannot be changed'), ['slug']),
  v.forward(v.check((body) => body.name !== undefined || body.require_2fa !== undefined, 'name is required (or require_2fa)'), ['name']),
);

export interface Workspace {
  id: string;
  name: string;
  slug: string;
  created_at: string;
  updated_at: string;
}

export function toWorkspace(row: WorkspaceRow): Workspace {
  return { id: row.id, name: row.name, slug: row.slug, created_at: row.created_at, updated_at: row.updated_at };
}

/** Creates a workspace and its audit row in one transaction; a taken slug is 409 slug_taken. */
export function createWorkspace(context: AppContext, actor: Actor, input: CreateWorkspaceInput): Workspace {
  return inWriteTransaction(context.db, () => {
    if (findWorkspaceBySlug(context.db, input.slug)) throw ApiError.conflict('slug_taken', `The slug ${input.slug} is taken`);
    const now = toIso(context.clock.now());
    const row: WorkspaceRow = { id: context.random.uuid(), slug: input.slug, name: input.name, created_at: now, updated_at: now };
    insertWorkspace(context.db, row);
    recordAudit(context, { workspaceId: row.id, actor, action: 'workspace.create', target: row.slug, metadata: { name: row.name } });
    return toWorkspace(row);
  });
}

export function renameWorkspaceBySlug(context: AppContext, actor: Actor, workspace: WorkspaceRow, name: string): Workspace {
  return inWriteTransaction(context.db, () => {
    const now = toIso(context.clock.now());
    renameWorkspace(context.db, workspace.id, name, now);
    recordAudit(context, {
      workspaceId: workspace.id,
      actor,
      action: 'workspace.update',
      target: workspace.slug,
      metadata: { name: { from: workspace.name, to: name } },
    });
    return toWorkspace({ ...workspace, name, updated_at: now });
  });
}

/** A workspace as GET and PATCH /workspaces/:slug show it: with its second-factor rule (docs/people.md). */
export function toWorkspaceWithSettings(context: AppContext, row: WorkspaceRow): Workspace & { require_2fa: boolean } {
  return { ...toWorkspace(row), require_2fa: requiresSecondFactor(context, row.id) };
}

/**
 * PATCH /workspaces/:slug: a new name and/or the second-factor rule, in one transaction with one audit row
 * (workspace.update, each changed field with its from and to).
 */
export function updateWorkspace(
  context: AppContext,
  actor: Actor,
  workspace: WorkspaceRow,
  input: { name?: string; require_2fa?: boolean },
): Workspace & { require_2fa: boolean } {
  return inWriteTransaction(context.db, () => {
    const now = toIso(context.clock.now());
    const metadata: Record<string, unknown> = {};
    let row = workspace;
    if (input.name !== undefined) {
      renameWorkspace(context.db, workspace.id, input.name, now);
      metadata.name = { from: workspace.name, to: input.name };
      row = { ...row, name: input.name, updated_at: now };
    }
    const required = requiresSecondFactor(context, workspace.id);
    if (input.require_2fa !== undefined && input.require_2fa !== required) {
      writeSecondFactorRule(context, workspace.id, input.require_2fa, now);
      metadata.require_2fa = { from: required, to: input.require_2fa };
      row = { ...row, updated_at: now };
    }
    if (Object.keys(metadata).length > 0) recordAudit(context, { workspaceId: workspace.id, actor, action: 'workspace.update', target: workspace.slug, metadata });
    return toWorkspaceWithSettings(context, row);
  });
}

export function listWorkspaces(context: AppContext, limit: number, cursor?: string): { workspaces: Workspace[]; next_cursor: string | null } {
  const rows = listWorkspaceRows(context.db, { ...afterParams(decodePageCursor(cursor)), limit: limit + 1 });
  const page = toPage(rows, limit);
  return { workspaces: page.rows.map(toWorkspace), next_cursor: page.nextCursor };
}
