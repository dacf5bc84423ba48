// @ts-check
// The sign-in page: a person's e-mail and password (then, when the account has a second factor, its code or a
// recovery code), "Sign in with SSO" when the server offers it, and the admin token or an API key for operators and
// machines (behind a toggle).
import { useEffect, useState } from 'preact/hooks';
import { html, onValue } from './html.js';
import { ApiFailure, messageOf, signIn, signInWithPassword, ssoOffered } from './api.js';

/**
 * What a refused sign-in says: 429 with the wait its Retry-After asks for.
 * @param {unknown} failure
 * @param {string} wrong what a 401 means here
 */
export function signInMessageOf(failure, wrong) {
  if (failure instanceof ApiFailure && failure.status === 429) {
    const wait = failure.retryAfter;
    if (wait === undefined) return 'Too many failed attempts: try again later.';
    return `Too many failed attempts: try again in ${wait < 120 ? `${wait} second${wait === 1 ? '' : 's'}` : `${Math.ceil(wait / 60)} minutes`}.`;
  }
  if (failure instanceof ApiFailure && failure.status === 401) return wrong;
  return messageOf(failure);
}

/** @param {{ error: string }} props */
const Problem = ({ error }) => (error ? html`<p class="state error" role="alert">${error}</p>` : null);

/**
 * E-mail and password; on 401 totp_required the same form asks for the second factor and sends all three.
 * @param {{ intro?: string }} props
 */
export function PasswordSignIn({ intro }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [needsCode, setNeedsCode] = useState(false);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  /** @param {Event} event */
  const submit = async (event) => {
    event.preventDefault();
    setBusy(true);
    setError('');
    try {
      await signInWithPassword(needsCode ? { email: email.trim(), password, totp: code.trim() } : { email: email.trim(), password });
    } catch (failure) {
      if (failure instanceof ApiFailure && failure.code === 'totp_required') {
        setNeedsCode(true);
      } else {
        setError(signInMessageOf(failure, needsCode ? 'That code is not valid (or the password changed): try again.' : 'That e-mail and password do not match an account.'));
        if (needsCode) setCode('');
      }
    } finally {
      setBusy(false);
    }
  };
  if (needsCode) {
    return html`<form onSubmit=${submit} class="sign-in-form" aria-label="Second factor">
      <h2>Two-factor authentication</h2>
      <p class="hint">Enter the 6-digit code of your authenticator app for ${email.trim()}, or one of your recovery codes.</p>
      <label for="totp">Code</label>
      <input id="totp" name="totp" autocomplete="one-time-code" inputmode="text" spellcheck="false" required maxlength="64" value=${code} onInput=${onValue(setCode)} autofocus />
      <button type="submit" disabled=${busy}>Verify</button>
      <button type="button" class="link" onClick=${() => { setNeedsCode(false); setCode(''); setPassword(''); setError(''); }}>Start over</button>
      <${Problem} error=${error} />
    </form>`;
  }
  return html`<form onSubmit=${submit} class="sign-in-form" aria-label="Sign in with e-mail">
    ${intro ? html`<p class="hint">${intro}</p>` : null}
    <label for="email">E-mail</label>
    <input id="email" name="email" type="email" autocomplete="username" required maxlength="254" value=${email} onInput=${onValue(setEmail)} />
    <label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024" value=${password} onInput=${onValue(setPassword)} />
    <button type="submit" disabled=${busy}>Sign in</button>
    <${Problem} error=${error} />
  </form>`;
}

/** The admin token or an API key, exchanged for the session cookie. */
function TokenSignIn() {
  const [token, setToken] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  /** @param {Event} event */
  const submit = async (event) => {
    event.preventDefault();
    setBusy(true);
    setError('');
    try {
      await signIn(token.trim());
    } catch (failure) {
      setError(signInMessageOf(failure, 'That token is not valid.'));
    } finally {
      setBusy(false);
    }
  };
  return html`<form onSubmit=${submit} class="sign-in-form" aria-label="Sign in with a token">
    <label for="token">Admin token or API key</label>
    <input id="token" name="token" type="password" autocomplete="off" spellcheck="false" required value=${token} onInput=${onValue(setToken)} />
    <button type="submit" disabled=${busy}>Sign in</button>
    <${Problem} error=${error} />
    <p class="hint">The token is exchanged for a session cookie that scripts cannot read; it is not stored in the browser.</p>
  </form>`;
}

/** What a refused single sign-on means (the callback's codes, docs/people.md). */
const ssoErrors = /** @type {Record<string, string>} */ ({
  sso_expired: 'The sign-in took too long. Please try again.',
  invalid_state: 'That sign-in link was not started here or was already used. Please try again.',
  sso_refused: 'The identity provider refused the sign-in.',
  sso_failed: 'The identity provider could not be reached or answered wrongly. Please try again.',
  email_unverified: 'Your identity provider has not verified your e-mail address.',
  domain_not_allowed: 'Your e-mail domain may not sign in here.',
  not_invited: 'You need an invitation before signing in here.',
  account_disabled: 'Your account is disabled.',
  account_conflict: 'Another account already uses this e-mail address.',
});

/** The SSO callback's refusal, from the page's address (#/sign-in?sso_error=code), once. */
function ssoErrorOfAddress() {
  const match = /^#\/sign-in\?sso_error=([a-z_]+)$/.exec(location.hash);
  if (!match) return '';
  history.replaceState(null, '', `${location.pathname}${location.search}`);
  return ssoErrors[match[1] ?? ''] ?? 'Single sign-on failed. Please try again.';
}

/** "Sign in with SSO", once the server says it offers it, and why the last attempt failed. */
export function SsoLink() {
  const [refusal] = useState(ssoErrorOfAddress);
  const [offered, setOffered] = useState(false);
  useEffect(() => {
    let current = true;
    ssoOffered().then((sso) => current && setOffered(sso), () => undefined);
    return () => {
      current = false;
    };
  }, []);
  return html`${refusal ? html`<p class="state error" role="alert">${refusal}</p>` : null}${offered ? html`<a class="button sso" href="/v1/auth/oidc/start">Sign in with SSO</a>` : null}`;
}

// The last way chosen on this browser (an operator keeps the token form): no secret, just the choice.
const wayKey = 'sightline-sign-in';

export function SignIn() {
  const [withToken, setToken] = useState(localStorage.getItem(wayKey) === 'token');
  /** @param {boolean} token */
  const setWithToken = (token) => {
    localStorage.setItem(wayKey, token ? 'token' : 'password');
    setToken(token);
  };
  return html`<main class="sign-in">
    <div class="panel">
      <h1>Sightline</h1>
      ${withToken ? html`<${TokenSignIn} />` : html`<${PasswordSignIn} /><${SsoLink} />`}
      <button type="button" class="link toggle" onClick=${() => setWithToken(!withToken)}>${withToken ? 'Sign in with e-mail and password' : 'Use an admin token or API key'}</button>
    </div>
  </main>`;
}
