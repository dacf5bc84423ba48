// The second factor: a TOTP secret (20 random bytes, sealed in users.totp_secret under "user-totp/<id>") set up in
// two steps (POST /v1/me/totp shows it, POST /v1/me/totp/confirm with a code turns it on and answers ten one-time
// recovery codes, shown once and stored as SHA-256 digests), and turned off with a code (DELETE /v1/me/totp).
import { createHash } from 'node:crypto';
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { ApiError } from '../http/errors.ts';
import { openSecret, sealSecret } from '../secrets/secret-box.ts';
import { recordAccountAudit } from './account-audit.ts';
import { deleteRecoveryCodes, insertRecoveryCode, useRecoveryCode } from './queries/recovery-code-rows.ts';
import { findUserById, setUserTotp, setUserTotpStep, type UserRow } from './queries/user-rows.ts';
import { base32Encode, matchTotp, otpauthUri } from './totp.ts';
import { type NewUserSession, replaceUserSession, type SignedInUser } from './user-sessions.ts';

export const recoveryCodeCount = 10;

const associatedDataOf = (userId: string) => `user-totp/${userId}`;

/** A recovery code as typed: case and dashes do not matter. */
function recoveryCodeDigest(code: string): Buffer {
  return createHash('sha256').update(code.toUpperCase().replace(/[-\s]/g, ''), 'utf8').digest();
}

/** Starts (or restarts) setting up a second factor: a new secret, not yet required at sign-in. 409 when one is on. */
export function startTotp(context: AppContext, userId: string): { secret: string; otpauth_uri: string } {
  return inWriteTransaction(context.db, () => {
    const user = findUserById(context.db, userId)!;
    if (user.totp_enabled === 1) throw ApiError.conflict('totp_enabled', 'A second factor is already on: turn it off first');
    const secret = context.random.bytes(20);
    setUserTotp(context.db, userId, sealSecret(context.config.dataDir, context.random, secret, associatedDataOf(userId)), false);
    return { secret: base32Encode(secret), otpauth_uri: otpauthUri(secret, user.email) };
  });
}

/**
 * Turns the pending secret on with a current code; answers the ten recovery codes (shown once) and the session that
 * replaces the one it was done in (a privilege change: new id, new cookie).
 */
export function confirmTotp(context: AppContext, signedIn: SignedInUser, code: string): { recovery_codes: string[]; newSession: NewUserSession } {
  const userId = signedIn.user.id;
  return inWriteTransaction(context.db, () => {
    const user = findUserById(context.db, userId)!;
    if (user.totp_enabled === 1) throw ApiError.conflict('totp_enabled', 'A second factor is already on');
    if (user.totp_secret === null) throw ApiError.conflict('totp_not_started', 'Start with POST /v1/me/totp');
    const step = matchTotp(openSecret(context.config.dataDir, user.totp_secret, associatedDataOf(userId)), code, context.clock.now(), null);
    if (step === undefined) throw invalidCode();
    setUserTotp(context.db, userId, user.totp_secret, true);
    setUserTotpStep(context.db, userId, step);
    deleteRecoveryCodes(context.db, userId);
    const codes = Array.from({ length: recoveryCodeCount }, () => base32Encode(context.random.bytes(10)).replace(/(.{4})(?=.)/g, '$1-'));
    for (const recovery of codes) insertRecoveryCode(context.db, userId, recoveryCodeDigest(recovery));
    const newSession = replaceUserSession(context, signedIn);
    recordAccountAudit(context, { actor: { kind: 'user', id: userId }, action: 'totp.enable', userId, metadata: { session_id: newSession.id } });
    return { recovery_codes: codes, newSession };
  });
}

/** Turns the second factor off with a current code or a recovery code. */
export function disableTotp(context: AppContext, userId: string, code: string): void {
  inWriteTransaction(context.db, () => {
    const user = findUserById(context.db, userId)!;
    if (user.totp_enabled !== 1) throw ApiError.conflict('totp_not_enabled', 'This account has no second factor');
    if (!useSecondFactor(context, user, code)) throw invalidCode();
    setUserTotp(context.db, userId, null, false);
    deleteRecoveryCodes(context.db, userId);
    recordAccountAudit(context, { actor: { kind: 'user', id: userId }, action: 'totp.disable', userId });
  });
}

export function invalidCode(): ApiError {
  return new ApiError(400, 'invalid_code', 'The code is wrong, expired or already used', [{ path: '/code', message: 'is not a current code or an unused recovery code' }]);
}

/**
 * Spends a current TOTP code (never one of a step already used) or an unused recovery code of an account with a
 * second factor; answers which, or undefined. Call inside a write transaction.
 */
export function useSecondFactor(context: AppContext, user: UserRow, code: string): 'totp' | 'recovery_code' | undefined {
  const trimmed = code.trim();
  if (user.totp_secret !== null && /^\d{6}$/.test(trimmed)) {
    const secret = openSecret(context.config.dataDir, user.totp_secret, associatedDataOf(user.id));
    const step = matchTotp(secret, trimmed, context.clock.now(), user.totp_last_step);
    if (step === undefined) return undefined;
    setUserTotpStep(context.db, user.id, step);
    return 'totp';
  }
  return useRecoveryCode(context.db, user.id, recoveryCodeDigest(trimmed), toIso(context.clock.now())) ? 'recovery_code' : undefined;
}
