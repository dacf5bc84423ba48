// A share link's token (src/ui/share-links.ts creates them): sent as `Authorization: Share <token>` and accepted by a
// site's /reports/* reads alone (src/reports/routes.ts). authenticate() never knows it, so every other route
// (mutations, events, the stream, other sites) answers it as it answers no credential.
import type { H3Event } from 'h3';
import { ApiError } from '../http/errors.ts';
import { hashSecret } from '../tenants/api-key-token.ts';
import type { SiteRow } from '../tenants/queries/find-site.ts';
import { checkSecret, clientIpOf, clientKeyOf } from './auth-throttle.ts';
import type { AccessContext, ShareLinkCredential } from './lookups.ts';

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
export function resolveSharedSite(event: H3Event, context: AccessContext, token: string, siteId: string): SiteRow {
  const live = (link: ShareLinkCredential | undefined) => (link && !link.revoked ? link : undefined);
  const link = checkSecret(context, clientKeyOf(clientIpOf(event, context)), () => live(context.access.findShareLinkByHash(hashSecret(token))));
  if (!link) throw ApiError.unauthorized();
  const site = link.siteId === siteId ? context.access.findSite(siteId) : undefined;
  if (!site || site.workspace_id !== link.workspaceId) throw ApiError.notFound();
  return site;
}
