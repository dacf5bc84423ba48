// One-time set-password links (CONTRACT section 9): `sightline user create` prints one instead of a password, so an
// operator never sees or passes on a secret of the person's. The link carries a token (pwl_ + 32 random bytes,
// base64url) shown once and stored only as its SHA-256, good for one use within 7 days; using it sets the password
// and ends every session of the account. An unknown, used or expired token answers one 404 (no hint which).
import { createHash } from 'node:crypto';
import * as v from 'valibot';
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import type { Db } from '../db/open.ts';
import { inWriteTransaction, preparedOnce } from '../db/statements.ts';
import { ApiError } from '../http/errors.ts';
import { recordAccountAudit } from './account-audit.ts';
import { Password } from './accounts.ts';
import { hashPassword } from './password.ts';
import { deleteAllUserSessions } from './queries/user-session-rows.ts';
import { setUserPassword } from './queries/user-rows.ts';

/** How long a link works: from its creation until this much later (refused from that millisecond on). */
export const passwordLinkLifetimeMs = 7 * 86_400_000;

interface PasswordLinkRow {
  id: string;
  user_id: string;
  expires_at: string;
  used_at: string | null;
}

const statements = preparedOnce((db: Db) => ({
  insert: db.prepare<{ id: string; user_id: string; token_hash: Buffer; created_at: string; expires_at: string }>(
    'INSERT INTO password_links (id, user_id, token_hash, created_at, expires_at) VALUES (:id, :user_id, :token_hash, :created_at, :expires_at)',
  ),
  byHash: db.prepare<[Buffer], PasswordLinkRow>('SELECT id, user_id, expires_at, used_at FROM password_links WHERE token_hash = ?'),
  use: db.prepare<{ id: string; now: string }>('UPDATE password_links SET used_at = :now WHERE id = :id AND used_at IS NULL'),
}));

const hashOf = (token: string) => createHash('sha256').update(token).digest();

export const SetPasswordBody = v.strictObject({ token: v.pipe(v.string(), v.minLength(1), v.maxLength(128)), password: Password });

/** A new link for the user; `linkBase` is where the UI is reached (PUBLIC_URL, else the server's address). */
export function createPasswordLink(context: AppContext, userId: string, linkBase: string): { url: string; expires_at: string } {
  const token = `pwl_${context.random.bytes(32).toString('base64url')}`;
  const now = context.clock.now();
  const expires_at = toIso(now + passwordLinkLifetimeMs);
  statements(context.db).insert.run({ id: context.random.uuid(), user_id: userId, token_hash: hashOf(token), created_at: toIso(now), expires_at });
  return { url: `${linkBase}/#/set-password?token=${token}`, expires_at };
}

/** Sets the password of the link's account and uses the link up; every session of the account ends. */
export async function usePasswordLink(context: AppContext, input: v.InferOutput<typeof SetPasswordBody>): Promise<void> {
  const passwordHash = await hashPassword(input.password);
  inWriteTransaction(context.db, () => {
    const now = context.clock.now();
    const link = statements(context.db).byHash.get(hashOf(input.token));
    if (!link || link.used_at !== null || Date.parse(link.expires_at) <= now) throw ApiError.notFound('No such link, or it was used or has expired');
    statements(context.db).use.run({ id: link.id, now: toIso(now) });
    setUserPassword(context.db, link.user_id, passwordHash);
    const sessionsEnded = deleteAllUserSessions(context.db, link.user_id);
    recordAccountAudit(context, { actor: { kind: 'user', id: link.user_id }, action: 'user.update', userId: link.user_id, metadata: { fields: ['password'], via: 'set_password_link', sessions_ended: sessionsEnded } });
  });
}
