// Audit rows of accounts (account_audit_log): sign-ins, account changes, second factors, revoked sessions. A failed
// sign-in names the account when the e-mail is one, never the e-mail itself. Membership changes go to the
// workspace's own audit log (src/audit/record-audit.ts) instead, where the workspace's admins read them.
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import type { Caller } from '../access/caller.ts';
import { insertAccountAuditRow, type AccountAuditRow } from './queries/account-audit-rows.ts';

export type AccountAuditAction =
  | 'user.create'
  | 'user.update'
  | 'user.disable'
  | 'login.success'
  | 'login.failure'
  | 'totp.enable'
  | 'totp.disable'
  | 'session.revoke';

export type AccountActor = { kind: 'admin' } | { kind: 'user'; id: string } | { kind: 'system' } | { kind: 'anonymous' };

export function accountActorOf(caller: Caller): AccountActor {
  if (caller.kind === 'admin') return { kind: 'admin' };
  if (caller.kind === 'user') return { kind: 'user', id: caller.userId };
  return { kind: 'system' };
}

export function recordAccountAudit(
  context: Pick<AppContext, 'db' | 'clock' | 'random'>,
  entry: { actor: AccountActor; action: AccountAuditAction; userId: string | null; metadata?: Record<string, unknown> },
): void {
  const row: AccountAuditRow = {
    id: context.random.uuid(),
    actor_kind: entry.actor.kind,
    actor_id: entry.actor.kind === 'user' ? entry.actor.id : null,
    action: entry.action,
    user_id: entry.userId,
    metadata: JSON.stringify(entry.metadata ?? {}),
    ts: toIso(context.clock.now()),
  };
  insertAccountAuditRow(context.db, row);
}
