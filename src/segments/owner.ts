// Who owns a saved segment or annotation: the caller as stored (user:<id>, apiKey:<id>, admin), and who may see or
// change one. A personal one is the owner's alone: to anyone else it does not exist (404). A site one is seen by
// every reader of the site and changed by its owner or a holder of the admin scope.
import { type Caller, hasScope } from '../access/caller.ts';

export type Visibility = 'personal' | 'site';

export function ownerIdOf(caller: Caller): string {
  if (caller.kind === 'admin') return 'admin';
  return caller.kind === 'apiKey' ? `apiKey:${caller.keyId}` : `user:${caller.userId}`;
}

export interface Owned {
  visibility: Visibility;
  owner_id: string;
}

/** Whether `ownerId` (null: a share link's reader, who owns nothing) sees the row. */
export function canSee(row: Owned, ownerId: string | null): boolean {
  return row.visibility === 'site' || row.owner_id === ownerId;
}

/** Whether the caller may change or delete a row it can see. */
export function canChange(row: Owned, caller: Caller, workspaceId: string): boolean {
  return row.owner_id === ownerIdOf(caller) || hasScope(caller, 'admin', workspaceId);
}
