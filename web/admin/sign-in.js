// @ts-check
// The sign-in page: an admin token or an API key, exchanged for a session cookie.
import { useState } from 'preact/hooks';
import { html, onValue } from './html.js';
import { ApiFailure, messageOf, signIn } from './api.js';

export function SignIn() {
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
      setError(failure instanceof ApiFailure && failure.status === 401 ? 'That token is not valid.' : messageOf(failure));
    } finally {
      setBusy(false);
    }
  };
  return html`<main class="sign-in">
    <form onSubmit=${submit} class="panel">
      <h1>Sightline</h1>
      <label for="token">Admin token or API key</label>
      <input id="token" name="token" type="password" autocomplete="off" spellcheck="false" required value=${token} onInput=${onValue(setToken)} />
      <button type="submit" disabled=${busy}>Sign in</button>
      ${error ? html`<p class="state error" role="alert">${error}</p>` : null}
      <p class="hint">The token is exchanged for a session cookie that scripts cannot read; it is not stored in the browser.</p>
    </form>
  </main>`;
}
