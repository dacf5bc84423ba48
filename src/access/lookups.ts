// What the access resolver looks up, handed to it when the app (or a CLI command) is created (src/app.ts builds it
// from tenants/, ui/ and users/): the resolver itself knows no table and no domain. A new kind of credential extends
// AccessLookups with its own lookup.
import type { H3Event } from 'h3';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { SiteRow } from '../tenants/queries/find-site.ts';
import type { WorkspaceRow } from '../tenants/queries/find-workspace.ts';
import type { Caller, Scope } from './caller.ts';

/** An API key as authentication sees it, found by the SHA-256 of its plaintext (revoked keys too). */
export interface KeyCredential {
  id: string;
  workspaceId: string;
  scopes: readonly Scope[];
  revoked: boolean;
}

/** A share link as its token's check sees it, found by the SHA-256 of the token (revoked links too). */
export interface ShareLinkCredential {
  siteId: string;
  workspaceId: string;
  revoked: boolean;
}

/**
 * @example const site = context.access.findSite('blog'); // undefined for a site that does not exist
 */
export interface AccessLookups {
  findKeyByHash(keyHash: Buffer): KeyCredential | undefined;
  /** A key authenticated a request: its last_used_at may be written (at most once a minute: the owner decides). */
  recordKeyUse(keyId: string): void;
  /**
   * The caller the admin UI's session cookie stands for, or undefined (no cookie, expired, cross-site, a mutating
   * request without the CSRF header: src/ui/session.ts).
   */
  sessionCallerOf(event: H3Event): Caller | undefined;
  /**
   * The user a session cookie of a signed-in person stands for, with their roles (src/users/user-sessions.ts), or
   * undefined under the same conditions as sessionCallerOf, or when the user is disabled. Throws 403
   * totp_setup_required for a user who lacks the second factor one of their workspaces requires (docs/people.md).
   */
  userSessionCallerOf(event: H3Event): Caller | undefined;
  findShareLinkByHash(tokenHash: Buffer): ShareLinkCredential | undefined;
  findSite(siteId: string): SiteRow | undefined;
  findWorkspaceBySlug(slug: string): WorkspaceRow | undefined;
}

/** What the resolver reads of the app's context (src/context.ts's AppContext has all of it). */
export interface AccessContext {
  config: Config;
  clock: Clock;
  /** The operator credential (CONTRACT section 1). */
  adminToken: string;
  access: AccessLookups;
}
