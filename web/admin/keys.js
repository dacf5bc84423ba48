// @ts-check
// A workspace's API keys: create one (its plaintext shown once, with the server's warning and a copy button), list
// them, revoke them. Needs the admin scope (the admin token, or a key with admin).
import { useState } from 'preact/hooks';
import { html, onValue } from './html.js';
import { api, reporting, schemaKey } from './api.js';
import { SecretOnce } from './secret-once.js';
import { useList } from './use-answer.js';
/** @import { CreatedKey, WorkspaceRef } from './types.js' */

const scopes = ['query:read', 'ingest:write', 'integrations:write', 'admin'];
/** @param {string} slug */
const keysPath = (slug) => `/v1/workspaces/${encodeURIComponent(slug)}/keys`;

/** @param {{ workspace: WorkspaceRef }} props */
export function KeysPanel({ workspace }) {
  const [label, setLabel] = useState('');
  const [chosen, setChosen] = useState(['query:read']);
  const [created, setCreated] = useState(/** @type {CreatedKey | null} */ (null));
  const [error, setError] = useState('');
  const keys = useList(`${keysPath(workspace.slug)}?limit=100`, schemaKey('GET', '/workspaces/{slug}/keys'), (answer) => answer.keys);
  const load = keys.load;
  /** @param {string} scope */
  const toggle = (scope) => setChosen((list) => (list.includes(scope) ? list.filter((item) => item !== scope) : [...list, scope]));
  const create = reporting(setError, async () => {
    setCreated(await api(keysPath(workspace.slug), { method: 'POST', body: { label, scopes: chosen }, schema: schemaKey('POST', '/workspaces/{slug}/keys') }));
    setLabel('');
    load();
  });
  /** @param {string} id */
  const revoke = (id) =>
    reporting(setError, async () => {
      await api(`${keysPath(workspace.slug)}/${encodeURIComponent(id)}`, { method: 'DELETE', schema: schemaKey('DELETE', '/workspaces/{slug}/keys/{keyId}') });
      if (created?.id === id) setCreated(null);
      load();
    });
  return html`<section class="panel keys">
    <header class="panel-head"><h2>API keys of ${workspace.name}</h2></header>
    <form class="props-form" onSubmit=${create} aria-label="Create an API key">
      <label>Label <input name="key-label" value=${label} onInput=${onValue(setLabel)} required maxlength="200" /></label>
      <fieldset class="scopes"><legend>Scopes</legend>
        ${scopes.map((scope) => html`<label><input type="checkbox" name=${`scope-${scope}`} checked=${chosen.includes(scope)} onChange=${() => toggle(scope)} /> ${scope}</label>`)}
      </fieldset>
      <button type="submit">Create key</button>
    </form>
    ${created ? html`<${SecretOnce} key=${created.id} name="key-plaintext" value=${created.plaintext} warning=${created.warning} />` : null}
    ${error ? html`<p class="state error" role="alert">${error}</p>` : null}
    ${keys.status === 'loading' ? html`<p class="state">Loading…</p>` : null}
    ${keys.status === 'error' ? html`<p class="state error" role="alert">${keys.error}</p>` : null}
    ${keys.status === 'ready' && keys.rows.length === 0 ? html`<p class="state">No keys.</p>` : null}
    ${keys.rows.length > 0
      ? html`<table>
          <thead><tr><th scope="col">Label</th><th scope="col">Scopes</th><th scope="col">Last used</th><th scope="col" class="number">State</th></tr></thead>
          <tbody>
            ${keys.rows.map(
              (key) => html`<tr key=${key.id}>
                <th scope="row" class="label">${key.label}</th>
                <td>${key.scopes.join(', ')}</td>
                <td>${key.last_used_at ? key.last_used_at.slice(0, 16).replace('T', ' ') : 'never'}</td>
                <td class="number">${key.revoked_at ? 'revoked' : html`<button type="button" class="link" onClick=${revoke(key.id)}>Revoke</button>`}</td>
              </tr>`,
            )}
          </tbody>
        </table>`
      : null}
  </section>`;
}
