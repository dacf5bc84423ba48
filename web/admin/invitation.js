// @ts-check
// The invitation page, at the link the server hands out (/#/invitations/accept?token=inv_…; the token sits in the
// fragment, so it never reaches a server log). Without an account: a name and a password, then signed in with
// them. With one (the server answers 401 sign_in_required): sign in first, then accept in that session.
import { useState } from 'preact/hooks';
import { html, onValue } from './html.js';
import { api, ApiFailure, messageOf, reloadMe, schemaKey, session, signInWithPassword } from './api.js';
import { PasswordSignIn } from './sign-in.js';
import { passwordProblem, PasswordFields } from './account.js';

const acceptPattern = /^#\/invitations\/accept\?token=(inv_[A-Za-z0-9_-]{1,128})$/;

/** The invitation token of the page's fragment, or undefined. */
export function invitationTokenOfPage() {
  return acceptPattern.exec(location.hash)?.[1];
}

/** Leaves the invitation page: the fragment (and its token) goes from the address bar and the history entry. */
function leave() {
  history.replaceState(null, '', `${location.pathname}${location.search}`);
  dispatchEvent(new HashChangeEvent('hashchange'));
}

/** @param {{ token: string }} props */
export function InvitationPage({ token }) {
  const current = session.value;
  const signedInAs = current?.kind === 'user' ? current.user.email : undefined;
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [error, setError] = useState('');
  const [needsSignIn, setNeedsSignIn] = useState(false);
  const [busy, setBusy] = useState(false);

  /** @param {Event} event */
  const accept = async (event) => {
    event.preventDefault();
    setError('');
    const problem = signedInAs ? '' : passwordProblem(password, repeat);
    if (problem) return setError(problem);
    setBusy(true);
    try {
      const body = signedInAs ? { token } : { token, name: name.trim(), password };
      const accepted = await api('/v1/invitations/accept', { method: 'POST', body, schema: schemaKey('POST', '/invitations/accept') });
      if (signedInAs) await reloadMe();
      else await signInWithPassword({ email: accepted.user.email, password });
      leave();
    } catch (failure) {
      if (failure instanceof ApiFailure && failure.code === 'sign_in_required') setNeedsSignIn(true);
      else if (failure instanceof ApiFailure && failure.status === 404) setError('This invitation is not valid any more: it was used, revoked or has expired. Ask for a new one.');
      // Signed in, but the invited e-mail has no account yet: it is made signed out, with a password.
      else if (signedInAs && failure instanceof ApiFailure && failure.details.some((detail) => detail.path === '/password')) setError(`This invitation is for another e-mail than ${signedInAs}: sign out, then open the link again to create that account.`);
      else setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  };

  if (needsSignIn && !signedInAs) {
    return html`<main class="sign-in"><div class="panel">
      <h1>Join a workspace</h1>
      <${PasswordSignIn} intro="This e-mail already has an account: sign in to it, then accept the invitation." />
    </div></main>`;
  }
  return html`<main class="sign-in"><div class="panel">
    <h1>Join a workspace</h1>
    <form onSubmit=${accept} class="sign-in-form" aria-label="Accept the invitation" novalidate>
      ${signedInAs
        ? html`<p class="hint">You are signed in as ${signedInAs}: accepting adds the workspace to this account.</p>`
        : html`<p class="hint">You were invited to Sightline. Choose your name and a password to create your account.</p>
            <label for="invite-name">Your name</label>
            <input id="invite-name" name="name" autocomplete="name" maxlength="200" value=${name} onInput=${onValue(setName)} />
            <${PasswordFields} password=${password} repeat=${repeat} setPassword=${setPassword} setRepeat=${setRepeat} />`}
      <button type="submit" disabled=${busy}>Accept the invitation</button>
      <button type="button" class="link" onClick=${leave}>Not now</button>
      ${error ? html`<p class="state error" role="alert">${error}</p>` : null}
    </form>
  </div></main>`;
}
