// Share links: a revocable, read-only link to one site's dashboard. The token (shr_ + 32 random bytes, base64url) is
// shown once; only its SHA-256 is stored. How a token is read and checked on a request: src/access/share-token.ts.
import * as v from 'valibot';
import { hashSecret } from '../tenants/api-key-token.ts';
import type { SiteRow } from '../tenants/queries/find-site.ts';
import { type Actor, recordAudit } from '../audit/record-audit.ts';
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { ApiError } from '../http/errors.ts';
import { TrimmedName } from '../http/validate.ts';
import { findShareLink, insertShareLink, listShareLinkRows, revokeShareLinkRow, type ShareLinkRow } from './queries/share-link-rows.ts';

export const CreateShareLinkBody = v.object({ label: TrimmedName });
/** A site lists at most this many links (newest first). */
export const maxShareLinksListed = 100;

export interface ShareLink {
  id: string;
  site_id: string;
  label: string;
  created_at: string;
  revoked_at: string | null;
}

function toShareLink(row: ShareLinkRow): ShareLink {
  return { id: row.id, site_id: row.site_id, label: row.label, created_at: row.created_at, revoked_at: row.revoked_at };
}

export function createShareLink(context: AppContext, actor: Actor, site: SiteRow, label: string): ShareLink & { token: string; warning: string } {
  const token = `shr_${context.random.bytes(32).toString('base64url')}`;
  const row: ShareLinkRow = {
    id: context.random.uuid(),
    workspace_id: site.workspace_id,
    site_id: site.id,
    token_hash: hashSecret(token),
    label,
    created_at: toIso(context.clock.now()),
    revoked_at: null,
    created_by: creatorOf(actor),
  };
  inWriteTransaction(context.db, () => {
    insertShareLink(context.db, row);
    recordAudit(context, { workspaceId: site.workspace_id, actor, action: 'share_link.create', target: row.id, metadata: { site_id: site.id, label } });
  });
  return { ...toShareLink(row), token, warning: 'The token is shown once: anyone with the link can read this site\'s reports until it is revoked.' };
}

/** How a link records its creator, and how an analyst's own links are found again. */
export function creatorOf(actor: Actor): string {
  return actor.kind === 'admin' || actor.kind === 'system' ? actor.kind : `${actor.kind}:${actor.id}`;
}

/** `onlyOf`: the creator whose links alone are listed (an analyst sees its own); undefined lists all. */
export function listShareLinks(context: AppContext, site: SiteRow, onlyOf?: string): ShareLink[] {
  return listShareLinkRows(context.db, { site_id: site.id, workspace_id: site.workspace_id, limit: maxShareLinksListed, created_by: onlyOf }).map(toShareLink);
}

/** Revokes a live link of the site (of `onlyOf` only, when given); a missing, foreign, another's or already revoked link is 404. */
export function revokeShareLink(context: AppContext, actor: Actor, site: SiteRow, id: string, onlyOf?: string): ShareLink {
  return inWriteTransaction(context.db, () => {
    const key = { id, site_id: site.id, workspace_id: site.workspace_id };
    const now = toIso(context.clock.now());
    if (!revokeShareLinkRow(context.db, { ...key, now, created_by: onlyOf })) throw ApiError.notFound();
    recordAudit(context, { workspaceId: site.workspace_id, actor, action: 'share_link.revoke', target: id, metadata: { site_id: site.id } });
    return toShareLink(findShareLink(context.db, key)!);
  });
}
