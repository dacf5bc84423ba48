// The workspace setting require_2fa (CONTRACT 9, docs/people.md "Second factor required"): set by an owner (or the
// operator) through PATCH /workspaces/:slug; enforced where a user's session becomes a caller (user-sessions.ts).
import type { AppContext } from '../context.ts';
import { setWorkspaceRequires2fa, workspaceRequires2fa } from './queries/two-factor-rule-rows.ts';

export const requiresSecondFactor = (context: Pick<AppContext, 'db'>, workspaceId: string): boolean => workspaceRequires2fa(context.db, workspaceId);

/** Writes the setting; call inside the workspace update's transaction (it writes the audit row). */
export function writeSecondFactorRule(context: Pick<AppContext, 'db'>, workspaceId: string, required: boolean, updatedAt: string): void {
  setWorkspaceRequires2fa(context.db, workspaceId, required, updatedAt);
}
