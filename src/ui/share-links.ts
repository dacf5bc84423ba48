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
import { findShareLink, findShareLinkById, insertShareLink, listShareLinkRows, revokeShareLinkRow, type ShareLinkRow } from './queries/share-link-rows.ts';

/** A share link may be embedded on at most this many origins. */
export const maxEmbedOrigins = 10;

/** An origin as a browser sends it: http(s)://host[:port], nothing after, never a wildcard. */
const EmbedOrigin = v.pipe(
  v.string('must be an origin'),
  v.maxLength(256, 'must be at most 256 characters'),
  v.check((text) => isOrigin(text), 'must be an origin: http:// or https://, a host and an optional port, nothing after (no path, no wildcard)'),
);

function isOrigin(text: string): boolean {
  // Letters, digits, dots and hyphens (or an IPv6 literal) and a port: nothing that could end the CSP directive it goes into.
  if (!/^https?:\/\/(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/.test(text)) return false;
  try {
    return new URL(text).origin === text;
  } catch {
    return false;
  }
}

export const CreateShareLinkBody = v.object({
  label: TrimmedName,
  embed_origins: v.optional(v.pipe(v.array(EmbedOrigin, 'must be a list of origins'), v.maxLength(maxEmbedOrigins, `must list at most ${maxEmbedOrigins} origins`)), []),
});
/** A site lists at most this many links (newest first). */
export const maxShareLinksListed = 100;

export interface ShareLink {
  id: string;
  site_id: string;
  label: string;
  created_at: string;
  revoked_at: string | null;
  /** Origins whose pages may frame the link's dashboard (GET /?embed=<id>); empty: none. */
  embed_origins: string[];
}

function toShareLink(row: ShareLinkRow): ShareLink {
  return { id: row.id, site_id: row.site_id, label: row.label, created_at: row.created_at, revoked_at: row.revoked_at, embed_origins: JSON.parse(row.embed_origins) as string[] };
}

/**
 * The origins that may frame the dashboard of the link `id`: its list while it is live, none otherwise (unknown or
 * revoked links, and links without a list, are framed by no one).
 */
export function embedOriginsOf(context: Pick<AppContext, 'db'>, id: string): string[] {
  const row = findShareLinkById(context.db, id);
  return row && row.revoked_at === null ? (JSON.parse(row.embed_origins) as string[]) : [];
}

export function createShareLink(
  context: AppContext,
  actor: Actor,
  site: SiteRow,
  input: { label: string; embed_origins: string[] },
): ShareLink & { token: string; warning: string } {
  const { label } = input;
  const embedOrigins = [...new Set(input.embed_origins)];
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
    embed_origins: JSON.stringify(embedOrigins),
  };
  inWriteTransaction(context.db, () => {
    insertShareLink(context.db, row);
    recordAudit(context, { workspaceId: site.workspace_id, actor, action: 'share_link.create', target: row.id, metadata: { site_id: site.id, label, ...(embedOrigins.length > 0 ? { embed_origins: embedOrigins } : {}) } });
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
