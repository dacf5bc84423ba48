// Who a person is in an analysis: anon_ids merged through user_id. The bindings are the projector's (identities),
// taken back to the execution's watermark: a binding the projector counted past it is dropped unless an event up to
// the watermark made it too, so a later login never moves people between panels of one execution.
import type { Db } from '../db/open.ts';
import { listUserBindingsBetween } from '../event-store/queries/user-bindings-between.ts';
import { isBoundUpTo, listBindingsOfAnons } from '../projector/queries/identities-as-of.ts';

/** anon_id → the person key ('u:' + user_id, or 'a:' + anon_id when it was never bound). */
export type PersonOf = (anonId: string) => string;

/** Looks up the people of the anon_ids an analysis read (one statement per site, not one per anon_id). */
export type ResolvePersons = (anonIds: readonly string[]) => PersonOf;

/**
 * The person of each of `anonIds` on the sites, as of `watermarkSeq`; `projectedSeq` is the projector's position
 * read in the same snapshot as the bindings. An anon_id bound to several users (a shared device) belongs to the user
 * whose id sorts first. With several sites (all-sites), a binding made on one site holds on all of them.
 * @example const personOf = resolvePersons(db, ['blog'], 120, 130, ['anon-1']); personOf('anon-1') // 'u:alice'
 */
export function resolvePersons(db: Db, siteIds: readonly string[], watermarkSeq: number, projectedSeq: number, anonIds: readonly string[]): PersonOf {
  const userOfAnon = new Map<string, string>();
  for (const siteId of siteIds) {
    const later = new Set<string>();
    for (const { anon_id, user_id } of listUserBindingsBetween(db, siteId, watermarkSeq, projectedSeq)) {
      if (!isBoundUpTo(db, { site_id: siteId, anon_id, user_id, max_seq: watermarkSeq })) later.add(`${anon_id}\u0000${user_id}`);
    }
    for (const { anon_id, user_id } of listBindingsOfAnons(db, siteId, anonIds)) {
      if (later.has(`${anon_id}\u0000${user_id}`)) continue;
      const current = userOfAnon.get(anon_id);
      if (current === undefined || user_id < current) userOfAnon.set(anon_id, user_id);
    }
  }
  return (anonId) => {
    const userId = userOfAnon.get(anonId);
    return userId === undefined ? `a:${anonId}` : `u:${userId}`;
  };
}
