// Writes one audit row inside the caller's transaction, so the row commits or rolls back with the mutation.
import type { Caller } from '../access/caller.ts';
import type { AppContext } from '../context.ts';
import { insertAuditRow, newestAuditTs } from './queries/insert-audit-row.ts';
import { toIso } from '../clock.ts';

export type Actor = { kind: 'admin' } | { kind: 'apiKey'; id: string } | { kind: 'user'; id: string } | { kind: 'system' };

export type AuditAction =
  | 'workspace.create'
  | 'workspace.update'
  | 'site.create'
  | 'site.update'
  | 'site.delete'
  | 'retention.purge'
  | 'key.create'
  | 'key.revoke'
  | 'dlq.replay'
  | 'gdpr.export'
  | 'gdpr.delete'
  | 'import.create'
  | 'import.delete'
  | 'spend.create'
  | 'spend.update'
  | 'spend.delete'
  | 'spend.import'
  | 'webhook_secret.set'
  | 'consent_banner.update'
  | 'endpoint.create'
  | 'endpoint.update'
  | 'endpoint.delete'
  | 'share_link.create'
  | 'share_link.revoke'
  | 'member.add'
  | 'member.update'
  | 'member.remove'
  | 'invitation.create'
  | 'invitation.accept'
  | 'invitation.revoke';

export interface AuditEntryInput {
  workspaceId: string;
  actor: Actor;
  action: AuditAction;
  target: string | null;
  metadata?: Record<string, unknown>;
}

export function actorOf(caller: Caller): Actor {
  if (caller.kind === 'admin') return { kind: 'admin' };
  return caller.kind === 'apiKey' ? { kind: 'apiKey', id: caller.keyId } : { kind: 'user', id: caller.userId };
}

/**
 * Must run inside the mutation's write transaction (see inWriteTransaction).
 * Timestamps are strictly increasing per workspace so that an ISO cursor never splits two rows of one millisecond.
 */
export function recordAudit(context: Pick<AppContext, 'db' | 'clock' | 'random'>, entry: AuditEntryInput): void {
  let ts = context.clock.now();
  const newest = newestAuditTs(context.db, entry.workspaceId);
  if (newest !== undefined) {
    const newestMs = Date.parse(newest);
    if (ts <= newestMs) ts = newestMs + 1;
  }
  insertAuditRow(context.db, {
    id: context.random.uuid(),
    workspace_id: entry.workspaceId,
    actor_kind: entry.actor.kind,
    actor_id: entry.actor.kind === 'apiKey' || entry.actor.kind === 'user' ? entry.actor.id : null,
    action: entry.action,
    target: entry.target,
    metadata: JSON.stringify(entry.metadata ?? {}),
    ts: toIso(ts),
  });
}
