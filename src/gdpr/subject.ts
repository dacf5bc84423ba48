// The subject of a GDPR request and what it covers on one site: a user_id covers every anon_id ever bound to it (the
// projector's bindings and those of the events it has not reached yet), and so each device's events from before it
// was bound; an anon_id covers itself. An anon_id bound to several users belongs to each of them.
import { createHash } from 'node:crypto';
import * as v from 'valibot';
import type { Db } from '../db/open.ts';
import { usersOfAnon } from '../projector/queries/identity-rows.ts';
import { listUserAnonIds } from '../projector/queries/user-anon-ids.ts';
import { listTailUserIds } from '../projector/queries/visitor-log-events.ts';

const Identifier = v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'), v.maxLength(128, 'must be at most 128 characters'));

/** `{ user_id }` or `{ anon_id }`: exactly one, nothing else. */
export const GdprBody = v.pipe(
  v.strictObject({ user_id: v.optional(Identifier), anon_id: v.optional(Identifier) }),
  v.check((body) => (body.user_id === undefined) !== (body.anon_id === undefined), 'exactly one of user_id and anon_id is required'),
);
export type GdprSubject = { user_id: string } | { anon_id: string };

export function subjectOf(body: v.InferOutput<typeof GdprBody>): GdprSubject {
  return body.user_id !== undefined ? { user_id: body.user_id } : { anon_id: body.anon_id! };
}

/** What the audit log keeps of a subject: the first 12 hex characters of the SHA-256 of its id, never the id. */
export function subjectDigest(subject: GdprSubject): string {
  const id = 'user_id' in subject ? subject.user_id : subject.anon_id;
  return createHash('sha256').update(id, 'utf8').digest('hex').slice(0, 12);
}

export function subjectKind(subject: GdprSubject): 'user_id' | 'anon_id' {
  return 'user_id' in subject ? 'user_id' : 'anon_id';
}

/** The anon_ids the subject covers on the site (a user's: empty when no event ever named it), sorted. */
export function anonIdsOfSubject(db: Db, siteId: string, subject: GdprSubject): string[] {
  if ('anon_id' in subject) return [subject.anon_id];
  return listUserAnonIds(db, { site_id: siteId, user_id: subject.user_id });
}

/** The (anon_id, user_id) bindings of the anon_ids: the projector's and those its unprojected events make. */
export function bindingsOf(db: Db, siteId: string, anonIds: readonly string[]): Set<string> {
  const bindings = new Set<string>();
  for (const anonId of anonIds) {
    for (const userId of [...usersOfAnon(db, siteId, anonId), ...listTailUserIds(db, { site_id: siteId, anon_id: anonId })]) {
      bindings.add(`${anonId}\u0000${userId}`);
    }
  }
  return bindings;
}
