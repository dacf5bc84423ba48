// @ts-check
// The account page of a person signed in: their name, a new password (the current one asked for), the second factor
// (a QR code drawn by the server, the secret as text, a code to confirm, the ten recovery codes shown once; turned
// off with a code) and their sessions (each revocable, the current one marked).
import { useState } from 'preact/hooks';
import { html, onValue, selectField } from './html.js';
import { api, ApiFailure, reloadMe, reporting, schemaKey, signedIn } from './api.js';
import { CopyButton } from './secret-once.js';
import { useList } from './use-answer.js';
import { signInMessageOf } from './sign-in.js';
/** @import { UserSession, UserSessionRow } from './types.js' */

/** The server's rule for passwords (docs/people.md), counted in code points as it counts them. */
export const minPasswordLength = 12;
export const maxPasswordLength = 256;

/**
 * Why a new password would be refused, or '' (checked before it is sent; the server checks again).
 * @param {string} password
 * @param {string} repeat
 */
export function passwordProblem(password, repeat) {
  const length = [...password].length;
  if (length < minPasswordLength) return `The password must be at least ${minPasswordLength} characters (it has ${length}).`;
  if (length > maxPasswordLength) return `The password must be at most ${maxPasswordLength} characters (it has ${length}).`;
  if (password !== repeat) return 'The two passwords differ.';
  return '';
}

/** @param {{ password: string, repeat: string, setPassword: (value: string) => void, setRepeat: (value: string) => void }} props */
export function PasswordFields({ password, repeat, setPassword, setRepeat }) {
  return html`<label for="new-password">New password <span class="hint">(${minPasswordLength} to ${maxPasswordLength} characters)</span></label>
    <input id="new-password" name="new-password" type="password" autocomplete="new-password" value=${password} onInput=${onValue(setPassword)} />
    <label for="repeat-password">The same again</label>
    <input id="repeat-password" name="repeat-password" type="password" autocomplete="new-password" value=${repeat} onInput=${onValue(setRepeat)} />`;
}

/** The person's session (this page is only shown to one). */
const me = () => /** @type {UserSession} */ (signedIn());

function NamePanel() {
  const [name, setName] = useState(me().user.name);
  const [current, setCurrent] = useState('');
  const [error, setError] = useState('');
  const [saved, setSaved] = useState(false);
  const submit = reporting(setError, async () => {
    setSaved(false);
    try {
      await api('/v1/me', { method: 'PATCH', body: { name: name.trim(), current_password: current }, schema: schemaKey('PATCH', '/me') });
    } catch (failure) {
      throw new Error(signInMessageOf(failure, 'The current password is wrong.'));
    }
    setCurrent('');
    setSaved(true);
    await reloadMe();
  });
  return html`<section class="panel"><header class="panel-head"><h2>Profile</h2></header>
    <form class="stacked-form" onSubmit=${submit} aria-label="Change your name">
      <p class="hint">Signed in as <strong>${me().user.email}</strong>.</p>
      <label for="account-name">Name</label>
      <input id="account-name" name="account-name" maxlength="200" value=${name} onInput=${onValue(setName)} />
      <label for="name-current-password">Current password</label>
      <input id="name-current-password" name="name-current-password" type="password" autocomplete="current-password" required value=${current} onInput=${onValue(setCurrent)} />
      <button type="submit">Save name</button>
      ${saved ? html`<p class="state" role="status">Name saved.</p>` : null}
      ${error ? html`<p class="state error" role="alert">${error}</p>` : null}
    </form>
  </section>`;
}

function PasswordPanel() {
  const [current, setCurrent] = useState('');
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [error, setError] = useState('');
  const [saved, setSaved] = useState(false);
  const submit = reporting(setError, async () => {
    setSaved(false);
    const problem = passwordProblem(password, repeat);
    if (problem) throw new Error(problem);
    try {
      await api('/v1/me', { method: 'PATCH', body: { password, current_password: current }, schema: schemaKey('PATCH', '/me') });
    } catch (failure) {
      throw new Error(signInMessageOf(failure, 'The current password is wrong.'));
    }
    setCurrent('');
    setPassword('');
    setRepeat('');
    setSaved(true);
  });
  return html`<section class="panel"><header class="panel-head"><h2>Password</h2></header>
    <form class="stacked-form" onSubmit=${submit} aria-label="Change your password" novalidate>
      <label for="current-password">Current password</label>
      <input id="current-password" name="current-password" type="password" autocomplete="current-password" value=${current} onInput=${onValue(setCurrent)} />
      <${PasswordFields} password=${password} repeat=${repeat} setPassword=${setPassword} setRepeat=${setRepeat} />
      <button type="submit">Change password</button>
      ${saved ? html`<p class="state" role="status">Password changed: your other sessions were signed out.</p>` : null}
      ${error ? html`<p class="state error" role="alert">${error}</p>` : null}
    </form>
  </section>`;
}

/**
 * The QR code the server drew, as an image: a data: URL (img-src allows it), so no markup of the answer is ever
 * inserted into the page.
 * @param {{ svg: string }} props
 */
const QrImage = ({ svg }) => html`<img class="qr" alt="QR code of the second factor's secret" width="200" height="200" src=${`data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`} />`;

/** @param {{ codes: string[], onDone: () => void }} props */
function RecoveryCodes({ codes, onDone }) {
  const text = codes.join('\n');
  return html`<div class="recovery" role="status">
    <p>Two-factor authentication is on. Keep these recovery codes somewhere safe: each signs you in once without your
      authenticator app. They are shown only now.</p>
    <textarea readonly class="recovery-codes" name="recovery-codes" rows=${codes.length} cols="22" onFocus=${selectField}>${text}</textarea>
    <div class="actions"><${CopyButton} value=${text} /><button type="button" onClick=${onDone}>I have saved them</button></div>
  </div>`;
}

/** @param {{ onChanged: () => Promise<void> }} props */
function EnableTwoFactor({ onChanged }) {
  const [setup, setSetup] = useState(/** @type {{ secret: string, otpauth_uri: string, qr_svg: string } | null} */ (null));
  const [code, setCode] = useState('');
  const [codes, setCodes] = useState(/** @type {string[] | null} */ (null));
  const [error, setError] = useState('');
  const start = reporting(setError, async () => setSetup(await api('/v1/me/totp', { method: 'POST', schema: schemaKey('POST', '/me/totp') })));
  const confirm = reporting(setError, async () => {
    try {
      const answer = await api('/v1/me/totp/confirm', { method: 'POST', body: { code: code.trim() }, schema: schemaKey('POST', '/me/totp/confirm') });
      setCodes(answer.recovery_codes);
    } catch (failure) {
      throw failure instanceof ApiFailure && failure.code === 'invalid_code' ? new Error('That code is not the current one: check the time of your device and try the next code.') : failure;
    }
  });
  if (codes) return html`<${RecoveryCodes} codes=${codes} onDone=${onChanged} />`;
  if (!setup) {
    return html`<p>Two-factor authentication is <strong>off</strong>. With it on, signing in asks for a code of an authenticator app too.</p>
      <button type="button" onClick=${start}>Set up two-factor authentication</button>
      ${error ? html`<p class="state error" role="alert">${error}</p>` : null}`;
  }
  return html`<div class="totp-setup">
    <${QrImage} svg=${setup.qr_svg} />
    <div>
      <p>Scan the QR code with your authenticator app, or enter this secret in it:</p>
      <input readonly class="share-url totp-secret" name="totp-secret" value=${setup.secret} onFocus=${selectField} />
      <p class="hint">Time-based, SHA-1, 6 digits, 30 seconds.</p>
      <form class="props-form" onSubmit=${confirm} aria-label="Confirm two-factor authentication">
        <label>Code from the app <input name="totp-code" autocomplete="one-time-code" inputmode="numeric" pattern="[0-9]{6}" maxlength="6" required value=${code} onInput=${onValue(setCode)} /></label>
        <button type="submit">Turn on</button>
      </form>
      ${error ? html`<p class="state error" role="alert">${error}</p>` : null}
    </div>
  </div>`;
}

/** @param {{ onChanged: () => Promise<void> }} props */
function DisableTwoFactor({ onChanged }) {
  const [code, setCode] = useState('');
  const [error, setError] = useState('');
  const submit = reporting(setError, async () => {
    try {
      await api('/v1/me/totp', { method: 'DELETE', body: { code: code.trim() } });
    } catch (failure) {
      throw failure instanceof ApiFailure && failure.code === 'invalid_code' ? new Error('That code is not valid: a current code or an unused recovery code turns it off.') : failure;
    }
    await onChanged();
  });
  return html`<p>Two-factor authentication is <strong>on</strong>.</p>
    <form class="props-form" onSubmit=${submit} aria-label="Turn two-factor authentication off">
      <label>Code or recovery code <input name="disable-code" autocomplete="one-time-code" maxlength="64" required value=${code} onInput=${onValue(setCode)} /></label>
      <button type="submit" class="danger">Turn off</button>
    </form>
    ${error ? html`<p class="state error" role="alert">${error}</p>` : null}`;
}

/** The second factor: on or off; `required`: a workspace of the person requires it and nothing else answers yet. */
export function TwoFactorPanel() {
  const current = me();
  const onChanged = () => reloadMe();
  return html`<section class="panel two-factor"><header class="panel-head"><h2>Two-factor authentication</h2></header>
    ${current.totp_setup_required
      ? html`<p class="state error" role="alert">A workspace of yours requires two-factor authentication: set it up to reach your workspaces.</p>`
      : null}
    ${current.user.totp_enabled ? html`<${DisableTwoFactor} onChanged=${onChanged} />` : html`<${EnableTwoFactor} onChanged=${onChanged} />`}
  </section>`;
}

/** @param {string} userAgent */
function browserOf(userAgent) {
  const found = /(Firefox|Edg|Chrome|Safari)\/[\d.]+/.exec(userAgent);
  const system = /(Windows|Mac OS X|Android|iPhone|Linux)/.exec(userAgent);
  return found ? `${found[1] === 'Edg' ? 'Edge' : found[1]}${system ? ` on ${system[1]}` : ''}` : userAgent || 'Unknown browser';
}

function SessionsPanel() {
  const sessions = useList('/v1/me/sessions', schemaKey('GET', '/me/sessions'), (answer) => answer.sessions);
  const [error, setError] = useState('');
  /** @param {UserSessionRow} row */
  const revoke = (row) =>
    reporting(setError, async () => {
      await api(`/v1/me/sessions/${encodeURIComponent(row.id)}`, { method: 'DELETE' });
      await sessions.load();
    });
  return html`<section class="panel"><header class="panel-head"><h2>Sessions</h2></header>
    ${sessions.status === 'loading' ? html`<p class="state">Loading…</p>` : null}
    ${sessions.status === 'error' ? html`<p class="state error" role="alert">${sessions.error}</p>` : null}
    ${sessions.rows.length > 0
      ? html`<table class="sessions">
          <thead><tr><th scope="col">Browser</th><th scope="col">Signed in</th><th scope="col">Last used</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
          <tbody>${sessions.rows.map(
            (row) => html`<tr key=${row.id} class=${row.current ? 'current' : ''}>
              <th scope="row" title=${row.user_agent}>${browserOf(row.user_agent)}${row.current ? html` <span class="badge">this session</span>` : null}</th>
              <td>${formatTime(row.created_at)}</td>
              <td>${formatTime(row.last_used_at)}</td>
              <td>${row.current ? null : html`<button type="button" class="link danger" onClick=${revoke(row)}>Revoke</button>`}</td>
            </tr>`,
          )}</tbody>
        </table>`
      : null}
    ${error ? html`<p class="state error" role="alert">${error}</p>` : null}
  </section>`;
}

/** @param {string} iso */
const formatTime = (iso) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function AccountPage() {
  const current = me();
  // Until the required second factor is set up, every other route answers 403: the page offers that alone.
  if (current.totp_setup_required) return html`<div class="account-page"><h1>Your account</h1><${TwoFactorPanel} /></div>`;
  return html`<div class="account-page">
    <h1>Your account</h1>
    <${NamePanel} />
    <${PasswordPanel} />
    <${TwoFactorPanel} />
    <${SessionsPanel} />
  </div>`;
}
