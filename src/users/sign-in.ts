// POST /v1/auth/login: e-mail, password and, when the account has a second factor, a TOTP code or a recovery code.
// An unknown e-mail, a wrong password, a disabled account and a wrong code all answer the same 401
// invalid_credentials after one scrypt hash each (an unknown e-mail hashes against a dummy), so neither the answer
// nor its time tells an account exists. Failures are throttled per client address and per account (CONTRACT 9,
// docs/people.md "Sign-in protection"); a throttled attempt is 429 before the password is even hashed.
import { createHash } from 'node:crypto';
import type { H3Event } from 'h3';
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { ApiError } from '../http/errors.ts';
import { authThrottleOf, clientIpOf, clientKeyOf } from '../access/auth-throttle.ts';
import { recordAccountAudit } from './account-audit.ts';
import { normaliseEmail } from './accounts.ts';
import { verifyPassword } from './password.ts';
import { findUserByEmail, setUserLogin, type UserRow } from './queries/user-rows.ts';
import { useSecondFactor } from './second-factor.ts';
import { createUserSession, type NewUserSession } from './user-sessions.ts';

export interface SignInInput {
  email: string;
  password: string;
  totp?: string;
}

export function invalidCredentials(): ApiError {
  return new ApiError(401, 'invalid_credentials', 'The e-mail, password or code is wrong');
}

/**
 * The throttle's key of an account: its id when the e-mail is one, else a digest of the e-mail, so an unknown
 * e-mail is throttled exactly like a known one (429 after the same number of failures: no enumeration).
 */
export function accountKeyOf(email: string, user: UserRow | undefined): string {
  return user ? `account:${user.id}` : `account:email:${createHash('sha256').update(email).digest('base64url')}`;
}

/** 429 rate_limited for the first of `keys` that has spent its allowance. */
export function refuseIfAnyThrottled(context: AppContext, keys: string[]): void {
  for (const key of keys) {
    const verdict = authThrottleOf(context).check(key);
    if (!verdict.allowed) {
      throw new ApiError(429, 'rate_limited', `Too many failed sign-in attempts; retry after ${verdict.retryAfterSeconds} s`, undefined, {
        'retry-after': String(verdict.retryAfterSeconds),
      });
    }
  }
}

/**
 * 429 when a key has spent its allowance; otherwise counts the attempt as a failure before the password is hashed
 * (tens of milliseconds), so guesses sent side by side cannot all pass one check: an attempt that succeeds is then
 * forgiven. Measured with bench/auth-guessing.mjs (docs/people.md, "Sign-in protection").
 */
export function chargeBeforeCheck(context: AppContext, keys: string[]): void {
  refuseIfAnyThrottled(context, keys);
  for (const key of keys) authThrottleOf(context).recordFailure(key);
}

/** Gives back what chargeBeforeCheck counted: the attempt succeeded (or only asked for the second factor). */
export function forgive(context: AppContext, keys: string[]): void {
  for (const key of keys) authThrottleOf(context).forgive(key);
}

export async function signIn(event: H3Event, context: AppContext, input: SignInInput): Promise<{ user: UserRow; session: NewUserSession }> {
  const email = normaliseEmail(input.email);
  const user = findUserByEmail(context.db, email);
  const keys = [clientKeyOf(clientIpOf(event, context)), accountKeyOf(email, user)];
  chargeBeforeCheck(context, keys);
  const passwordMatches = await verifyPassword(input.password, user?.password_hash);
  const fail = (reason: string): never => {
    inWriteTransaction(context.db, () =>
      recordAccountAudit(context, { actor: { kind: 'anonymous' }, action: 'login.failure', userId: user?.id ?? null, metadata: { reason } }),
    );
    throw invalidCredentials();
  };
  if (!user) return fail('unknown_email');
  if (!passwordMatches) return fail('wrong_password');
  if (user.disabled_at !== null) return fail('disabled');
  // The password was right: asking for the code is no failure (and says no more than a right password does).
  if (user.totp_enabled === 1 && (input.totp === undefined || input.totp === '')) {
    forgive(context, keys);
    throw new ApiError(401, 'totp_required', 'This account has a second factor: send a current code (totp) or a recovery code');
  }
  const signedIn = inWriteTransaction(context.db, () => {
    const factor = user.totp_enabled === 1 ? useSecondFactor(context, user, input.totp!) : 'none';
    if (factor === undefined) return undefined;
    const now = toIso(context.clock.now());
    setUserLogin(context.db, user.id, now);
    const session = createUserSession(context, user.id, event.req.headers.get('user-agent') ?? '');
    recordAccountAudit(context, { actor: { kind: 'user', id: user.id }, action: 'login.success', userId: user.id, metadata: { second_factor: factor, session_id: session.id } });
    return { user: { ...user, last_login_at: now }, session };
  });
  if (!signedIn) return fail('wrong_code');
  forgive(context, keys);
  return signedIn;
}
