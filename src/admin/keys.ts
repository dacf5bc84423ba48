// API key actions shared by the HTTP routes and the CLI: create (plaintext shown once), list, revoke.
import * as v from 'valibot';
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { allScopes, type Scope } from '../access/caller.ts';
import { ApiError } from '../http/errors.ts';
import { afterParams, decodePageCursor, toPage } from '../http/pagination.ts';
import { TrimmedName } from '../http/validate.ts';
import { type Actor, recordAudit } from '../audit/record-audit.ts';
import { generateKeyPlaintext, hashSecret } from '../tenants/api-key-token.ts';
import type { WorkspaceRow } from '../tenants/queries/find-workspace.ts';
import { findKeyInWorkspace, insertKey, type KeyRow, listKeyRows, revokeKeyRow } from '../tenants/queries/key-rows.ts';

export const CreateKeyBody = v.object({
  label: TrimmedName,
  scopes: v.pipe(
    v.array(v.picklist(allScopes, `must be one of ${allScopes.join(', ')}`), 'must be an array of scopes'),
    v.minLength(1, 'must name at least one scope'),
    v.check((scopes) => new Set(scopes).size === scopes.length, 'must not repeat a scope'),
  ),
});
export type CreateKeyInput = v.InferOutput<typeof CreateKeyBody>;

export interface ApiKey {
  id: string;
  workspace_id: string;
  label: string;
  scopes: Scope[];
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface CreatedApiKey extends ApiKey {
  plaintext: string;
  warning: string;
}

export const keyWarning = 'Save this key now: it is shown only once and cannot be recovered. If you lose it, create a new key.';

export function toApiKey(row: KeyRow): ApiKey {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    label: row.label,
    scopes: JSON.parse(row.scopes) as Scope[],
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    revoked_at: row.revoked_at,
  };
}

export function createKey(context: AppContext, actor: Actor, workspace: WorkspaceRow, input: CreateKeyInput): CreatedApiKey {
  const plaintext = generateKeyPlaintext(workspace.slug, context.random);
  return inWriteTransaction(context.db, () => {
    const row: KeyRow = {
      id: context.random.uuid(),
      workspace_id: workspace.id,
      label: input.label,
      scopes: JSON.stringify(input.scopes),
      created_at: toIso(context.clock.now()),
      last_used_at: null,
      revoked_at: null,
    };
    insertKey(context.db, { ...row, key_hash: hashSecret(plaintext) });
    recordAudit(context, { workspaceId: workspace.id, actor, action: 'key.create', target: row.id, metadata: { label: row.label, scopes: input.scopes } });
    return { ...toApiKey(row), plaintext, warning: keyWarning };
  });
}

export function listKeys(context: AppContext, workspace: WorkspaceRow, limit: number, cursor?: string): { keys: ApiKey[]; next_cursor: string | null } {
  const rows = listKeyRows(context.db, { workspaceId: workspace.id, ...afterParams(decodePageCursor(cursor)), limit: limit + 1 });
  const page = toPage(rows, limit);
  return { keys: page.rows.map(toApiKey), next_cursor: page.nextCursor };
}

/** Revokes a key of this workspace; an unknown, foreign or already revoked key is a 404 (spec, States). */
export function revokeKey(context: AppContext, actor: Actor, workspace: WorkspaceRow, keyId: string): ApiKey {
  return inWriteTransaction(context.db, () => {
    const row = findKeyInWorkspace(context.db, workspace.id, keyId);
    const now = toIso(context.clock.now());
    if (!row || !revokeKeyRow(context.db, row.id, now)) throw ApiError.notFound();
    recordAudit(context, { workspaceId: workspace.id, actor, action: 'key.revoke', target: row.id, metadata: { label: row.label } });
    return toApiKey({ ...row, revoked_at: now });
  });
}
