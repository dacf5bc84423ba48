// Share links: a revocable, read-only link to one site's dashboard. The token (shr_ + 32 random bytes, base64url) is
// shown once; only its SHA-256 is stored. It is sent as `Authorization: Share <token>` and accepted by the site's
// /reports/* reads alone (src/reports/routes.ts): authenticate() never knows it, so every other route (mutations,
// events, the stream, other sites) answers it as it answers no credential.
import type { H3Event } from 'h3';
import * as v from 'valibot';
import { hashSecret } from '../tenants/api-key-token.ts';
import { findSite, type SiteRow } from '../tenants/queries/find-site.ts';
import { registerSiteDataRemover } from '../admin/site-data.ts';
import { type Actor, recordAudit } from '../audit/record-audit.ts';
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { checkSecret, clientIpOf, clientKeyOf } from '../http/auth-throttle.ts';
import { ApiError } from '../http/errors.ts';
import { TrimmedName } from '../http/validate.ts';
import { deleteShareLinksOfSite, findShareLink, findShareLinkByHash, insertShareLink, listShareLinkRows, revokeShareLinkRow, type ShareLinkRow } from './queries/share-link-rows.ts';

registerSiteDataRemover('ui-share-links', deleteShareLinksOfSite);

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

/** The token of an `Authorization: Share <token>` header, or undefined. */
export function readShareToken(event: H3Event): string | undefined {
  const match = /^Share[ ]+(shr_[A-Za-z0-9_-]{43})\s*$/.exec(event.req.headers.get('authorization') ?? '');
  return match?.[1];
}

/**
 * The site a share token reaches when it is live and names this very site (of the same workspace): an unknown or
 * revoked token is 401 as a wrong bearer is, and counts against the client's address like one (429 once it is
 * throttled); a live one used on any other site is that site's 404 (missing and foreign alike).
 */
export function resolveSharedSite(event: H3Event, context: AppContext, token: string, siteId: string): SiteRow {
  const live = (link: ShareLinkRow | undefined) => (link && link.revoked_at === null ? link : undefined);
  const link = checkSecret(context, clientKeyOf(clientIpOf(event, context)), () => live(findShareLinkByHash(context.db, hashSecret(token))));
  if (!link) throw ApiError.unauthorized();
  const site = link.site_id === siteId ? findSite(context.db, siteId) : undefined;
  if (!site || site.workspace_id !== link.workspace_id) throw ApiError.notFound();
  return site;
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
  };
  inWriteTransaction(context.db, () => {
    insertShareLink(context.db, row);
    recordAudit(context, { workspaceId: site.workspace_id, actor, action: 'share_link.create', target: row.id, metadata: { site_id: site.id, label } });
  });
  return { ...toShareLink(row), token, warning: 'The token is shown once: anyone with the link can read this site\'s reports until it is revoked.' };
}

export function listShareLinks(context: AppContext, site: SiteRow): ShareLink[] {
  return listShareLinkRows(context.db, { site_id: site.id, workspace_id: site.workspace_id, limit: maxShareLinksListed }).map(toShareLink);
}

/** Revokes a live link of the site; a missing, foreign or already revoked link is 404. */
export function revokeShareLink(context: AppContext, actor: Actor, site: SiteRow, id: string): ShareLink {
  return inWriteTransaction(context.db, () => {
    const key = { id, site_id: site.id, workspace_id: site.workspace_id };
    const now = toIso(context.clock.now());
    if (!revokeShareLinkRow(context.db, { ...key, now })) throw ApiError.notFound();
    recordAudit(context, { workspaceId: site.workspace_id, actor, action: 'share_link.revoke', target: id, metadata: { site_id: site.id } });
    return toShareLink(findShareLink(context.db, key)!);
  });
}
