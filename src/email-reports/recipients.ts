// Who may receive a site's mail: an account that exists, is not disabled, and can still see the site (a member of
// its workspace, or a platform operator). A member who left stops receiving reports and alerts at once.
import type { Db } from '../db/open.ts';
import { findMembership } from '../users/queries/membership-rows.ts';
import { findUserById, type UserRow } from '../users/queries/user-rows.ts';

/** The account to mail, or undefined when it may no longer receive the workspace's mail. */
export function mailableUser(db: Db, userId: string, workspaceId: string): UserRow | undefined {
  const user = findUserById(db, userId);
  if (!user || user.disabled_at !== null) return undefined;
  return user.operator === 1 || findMembership(db, workspaceId, userId) ? user : undefined;
}
