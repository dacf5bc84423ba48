// @ts-check
// The set-password page, at the one-time link `sightline user create` prints (/#/set-password?token=pwl_…; the token
// sits in the fragment, so it never reaches a server log): a new password typed twice, then the sign-in page.
import { useState } from 'preact/hooks';
import { html } from './html.js';
import { api, ApiFailure, messageOf } from './api.js';
import { passwordProblem, PasswordFields } from './account.js';

const linkPattern = /^#\/set-password\?token=(pwl_[A-Za-z0-9_-]{1,128})$/;

/** The set-password token of the page's fragment, or undefined. */
export function passwordTokenOfPage() {
  return linkPattern.exec(location.hash)?.[1];
}

/** Leaves the page: the fragment (and its token) goes from the address bar and the history entry. */
function leave() {
  history.replaceState(null, '', `${location.pathname}${location.search}`);
  dispatchEvent(new HashChangeEvent('hashchange'));
}

/** @param {{ token: string }} props */
export function SetPasswordPage({ token }) {
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [error, setError] = useState('');
  const [done, setDone] = useState(false);
  const [busy, setBusy] = useState(false);
  /** @param {Event} event */
  const submit = async (event) => {
    event.preventDefault();
    setError('');
    const problem = passwordProblem(password, repeat);
    if (problem) return setError(problem);
    setBusy(true);
    try {
      await api('/v1/auth/set-password', { method: 'POST', body: { token, password } });
      setDone(true);
    } catch (failure) {
      setError(failure instanceof ApiFailure && failure.status === 404 ? 'This link is not valid any more: it was used or has expired. Ask your operator for a new one.' : messageOf(failure));
    } finally {
      setBusy(false);
    }
  };
  if (done) {
    return html`<main class="sign-in"><div class="panel">
      <h1>Password set</h1>
      <p class="hint">Your password is set. Sign in with your e-mail and the new password.</p>
      <button type="button" onClick=${leave}>Sign in</button>
    </div></main>`;
  }
  return html`<main class="sign-in"><div class="panel">
    <h1>Set your password</h1>
    <form onSubmit=${submit} class="sign-in-form" aria-label="Set your password" novalidate>
      <p class="hint">Your Sightline account was made for you. Choose its password (this link works once).</p>
      <${PasswordFields} password=${password} repeat=${repeat} setPassword=${setPassword} setRepeat=${setRepeat} />
      <button type="submit" disabled=${busy}>Set the password</button>
      ${error ? html`<p class="state error" role="alert">${error}</p>` : null}
    </form>
  </div></main>`;
}
