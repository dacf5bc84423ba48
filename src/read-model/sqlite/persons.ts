// Who a person is in an analysis: anon_ids merged through user_id. The bindings are the projector's (identities),
// taken back to the execution's watermark: a binding the projector counted past it is dropped unless an event up to
// the watermark made it too, so a later login never moves people between panels of one execution.
import type { Db } from '../../db/open.ts';
import { listUserBindingsBetween } from './queries/user-bindings-between.ts';
import { isBoundUpTo, listBindingsOfAnons, listBindingsOfVisitors } from './queries/identities-as-of.ts';

/** anon_id → the person key ('u:' + user_id, or 'a:' + anon_id when it was never bound). */
export type PersonOf = (anonId: string) => string;

/**
 * The bindings of one site the projector counted past the watermark that no event up to it made, as
 * "anon_id\0user_id": they are taken back, so a later login never moves people between panels of one execution.
 */
function bindingsPastWatermark(db: Db, siteId: string, watermarkSeq: number, projectedSeq: number): Set<string> {
  const later = new Set<string>();
  for (const { anon_id, user_id } of listUserBindingsBetween(db, siteId, watermarkSeq, projectedSeq)) {
    if (!isBoundUpTo(db, { site_id: siteId, anon_id, user_id, max_seq: watermarkSeq })) later.add(`${anon_id}\u0000${user_id}`);
  }
  return later;
}

/** An anon_id bound to several users (a shared device) belongs to the user whose id sorts first. */
function keepFirstUser<K>(users: Map<K, string>, key: K, userId: string): void {
  const current = users.get(key);
  if (current === undefined || userId < current) users.set(key, userId);
}

/**
 * The person of each of `anonIds` on the sites, as of `watermarkSeq`; `projectedSeq` is the projector's position
 * read in the same snapshot as the bindings. With several sites (all-sites), a binding made on one site holds on all
 * of them.
 * @example const personOf = resolvePersons(db, ['blog'], 120, 130, ['anon-1']); personOf('anon-1') // 'u:alice'
 */
export function resolvePersons(db: Db, siteIds: readonly string[], watermarkSeq: number, projectedSeq: number, anonIds: readonly string[]): PersonOf {
  const userOfAnon = new Map<string, string>();
  for (const siteId of siteIds) {
    const later = bindingsPastWatermark(db, siteId, watermarkSeq, projectedSeq);
    for (const { anon_id, user_id } of listBindingsOfAnons(db, siteId, anonIds)) {
      if (!later.has(`${anon_id}\u0000${user_id}`)) keepFirstUser(userOfAnon, anon_id, user_id);
    }
  }
  return (anonId) => {
    const userId = userOfAnon.get(anonId);
    return userId === undefined ? `a:${anonId}` : `u:${userId}`;
  };
}

/**
 * The user of each of `vids` (visitor numbers of the sites' workspace) as of `watermarkSeq`, by the same rules as
 * resolvePersons; a visitor of no user is absent.
 * @example resolveVisitorUsers(db, ['blog'], 120, 130, [3]).get(3) // 'alice'
 */
export function resolveVisitorUsers(db: Db, siteIds: readonly string[], watermarkSeq: number, projectedSeq: number, vids: readonly number[]): Map<number, string> {
  const userOfVisitor = new Map<number, string>();
  for (const siteId of siteIds) {
    const later = bindingsPastWatermark(db, siteId, watermarkSeq, projectedSeq);
    for (const { vid, anon_id, user_id } of listBindingsOfVisitors(db, siteId, vids)) {
      if (!later.has(`${anon_id}\u0000${user_id}`)) keepFirstUser(userOfVisitor, vid, user_id);
    }
  }
  return userOfVisitor;
}
