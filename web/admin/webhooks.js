// @ts-check
// A workspace's outbound webhook endpoints (/v1/workspaces/:slug/integrations/endpoints, docs/integrations.md): list,
// create (the whsec_ signing secret shown once, with the server's warning and a copy button), edit the URL and event
// types, disable or enable, delete after a confirmation, send a test delivery, and each endpoint's delivery history
// (every attempt's outcome, status, latency and the answer's first bytes, as text). Needs the admin scope.
import { useState } from 'preact/hooks';
import { html, onValue } from './html.js';
import { api, reporting, schemaKey } from './api.js';
import { SecretOnce } from './secret-once.js';
import { useList } from './use-answer.js';
import { PageState, usePages } from './use-pages.js';
/** @import { CreatedEndpoint, Endpoint, WorkspaceRef } from './types.js' */

const eventTypes = /** @type {const} */ (['bridge.action_recorded', 'event.purchase']);
/** @typedef {(typeof eventTypes)[number]} EventType */
/** @param {string} slug */
const endpointsPath = (slug) => `/v1/workspaces/${encodeURIComponent(slug)}/integrations/endpoints`;
/** @param {string} slug @param {string} id */
const endpointPath = (slug, id) => `${endpointsPath(slug)}/${encodeURIComponent(id)}`;
/** @param {string} iso */
const when = (iso) => iso.slice(0, 19).replace('T', ' ');

/** @param {{ chosen: EventType[], setChosen: (types: EventType[]) => void, prefix: string }} props prefix: of the checkboxes' names */
function TypeChoice({ chosen, setChosen, prefix }) {
  /** @param {EventType} type */
  const toggle = (type) => setChosen(chosen.includes(type) ? chosen.filter((item) => item !== type) : [...chosen, type]);
  return html`<fieldset class="scopes"><legend>Event types</legend>
    ${eventTypes.map((type) => html`<label><input type="checkbox" name=${`${prefix}-${type}`} checked=${chosen.includes(type)} onChange=${() => toggle(type)} /> ${type}</label>`)}
  </fieldset>`;
}

/** @param {{ workspace: WorkspaceRef, endpoint: Endpoint, onSaved: (saved: Endpoint) => void, onCancel: () => void }} props */
function EditEndpoint({ workspace, endpoint, onSaved, onCancel }) {
  const [url, setUrl] = useState(endpoint.url);
  const [chosen, setChosen] = useState(endpoint.event_types);
  const [error, setError] = useState('');
  const save = reporting(setError, async () => {
    onSaved(await api(endpointPath(workspace.slug, endpoint.id), { method: 'PATCH', body: { url, event_types: chosen }, schema: schemaKey('PATCH', '/workspaces/{slug}/integrations/endpoints/{id}') }));
  });
  return html`<form class="props-form" onSubmit=${save} aria-label="Edit the endpoint" novalidate>
    <label>URL <input name="edit-endpoint-url" value=${url} onInput=${onValue(setUrl)} size="40" /></label>
    <${TypeChoice} chosen=${chosen} setChosen=${setChosen} prefix="edit-type" />
    <button type="submit">Save endpoint</button>
    <button type="button" class="link" onClick=${onCancel}>Cancel</button>
    ${error ? html`<p class="state error" role="alert">${error}</p>` : null}
  </form>`;
}

/** @param {{ workspace: WorkspaceRef, endpoint: Endpoint, version: number }} props version: read again when it changes */
function Deliveries({ workspace, endpoint, version }) {
  /** @param {string} [cursor] */
  const pathOf = (cursor) => `${endpointPath(workspace.slug, endpoint.id)}/deliveries?${new URLSearchParams({ limit: '20', ...(cursor ? { cursor } : {}) })}`;
  const page = usePages(`${pathOf()}#${version}`, pathOf, { schema: schemaKey('GET', '/workspaces/{slug}/integrations/endpoints/{id}/deliveries'), itemsOf: (answer) => answer.deliveries, nextOf: (answer) => answer.next_cursor });
  return html`<div class="deliveries">
    <h3>Deliveries to ${endpoint.url}</h3>
    ${page.status === 'ready' && page.items.length === 0 ? html`<p class="state">No deliveries yet.</p>` : null}
    <ol class="delivery-list">
      ${page.items.map(
        (delivery) => html`<li key=${delivery.id}>
          <p class="dlq-head"><span class="live-type">${delivery.type}</span> <span class=${`delivery-status ${delivery.status}`}>${delivery.status}</span>
            <span class="hint">${delivery.attempts} ${delivery.attempts === 1 ? 'attempt' : 'attempts'}, created ${when(delivery.created_at)}${delivery.next_attempt_at ? `, next ${when(delivery.next_attempt_at)}` : ''}</span></p>
          <table class="attempts">
            <thead><tr><th scope="col">Attempted (UTC)</th><th scope="col">Outcome</th><th scope="col" class="number">Status</th><th scope="col" class="number">Latency</th><th scope="col">Answer</th></tr></thead>
            <tbody>
              ${delivery.history.map(
                (attempt) => html`<tr>
                  <th scope="row">${when(attempt.attempted_at)}</th>
                  <td class="outcome">${attempt.outcome}</td>
                  <td class="number status-code">${attempt.status_code ?? '–'}</td>
                  <td class="number">${attempt.latency_ms === null ? '–' : `${attempt.latency_ms} ms`}</td>
                  <td><code class="excerpt">${attempt.response_excerpt ?? ''}</code></td>
                </tr>`,
              )}
            </tbody>
          </table>
        </li>`,
      )}
    </ol>
    <${PageState} pages=${page} label="Older" />
  </div>`;
}

/** @param {{ workspace: WorkspaceRef }} props */
export function WebhooksPanel({ workspace }) {
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [chosen, setChosen] = useState(/** @type {EventType[]} */ (['event.purchase']));
  const [created, setCreated] = useState(/** @type {CreatedEndpoint | null} */ (null));
  // The ids of the endpoint being edited, asked about before its deletion, and whose deliveries are shown.
  const [editing, setEditing] = useState(/** @type {string | null} */ (null));
  const [deleting, setDeleting] = useState(/** @type {string | null} */ (null));
  const [shown, setShown] = useState(/** @type {string | null} */ (null));
  const [version, setVersion] = useState(0);
  const [error, setError] = useState('');
  const [done, setDone] = useState('');
  const list = useList(`${endpointsPath(workspace.slug)}?limit=100`, schemaKey('GET', '/workspaces/{slug}/integrations/endpoints'), (answer) => answer.endpoints);
  const load = list.load;
  /** @param {() => Promise<unknown>} action */
  const act = (action) =>
    reporting(setError, async () => {
      setDone('');
      await action();
      load();
    });
  const create = act(async () => {
    const body = { url, event_types: chosen, ...(description ? { description } : {}) };
    setCreated(await api(endpointsPath(workspace.slug), { method: 'POST', body, schema: schemaKey('POST', '/workspaces/{slug}/integrations/endpoints') }));
    setUrl('');
    setDescription('');
  });
  /** @param {Endpoint} endpoint @param {Endpoint['status']} status */
  const setStatus = (endpoint, status) => act(() => api(endpointPath(workspace.slug, endpoint.id), { method: 'PATCH', body: { status }, schema: schemaKey('PATCH', '/workspaces/{slug}/integrations/endpoints/{id}') }));
  /** @param {Endpoint} endpoint */
  const remove = (endpoint) =>
    act(async () => {
      await api(endpointPath(workspace.slug, endpoint.id), { method: 'DELETE' });
      setDeleting(null);
      if (shown === endpoint.id) setShown(null);
      if (created?.id === endpoint.id) setCreated(null);
    });
  /** @param {Endpoint} endpoint */
  const test = (endpoint) =>
    act(async () => {
      const delivery = await api(`${endpointPath(workspace.slug, endpoint.id)}/test`, { method: 'POST', schema: schemaKey('POST', '/workspaces/{slug}/integrations/endpoints/{id}/test') });
      const attempt = delivery.history[0];
      setDone(`Test delivery ${delivery.status}: ${attempt ? `${attempt.outcome}${attempt.status_code === null ? '' : ` (${attempt.status_code})`}` : 'not attempted'}.`);
      setShown(endpoint.id);
      setVersion((value) => value + 1);
    });
  const shownEndpoint = list.rows.find((endpoint) => endpoint.id === shown);
  return html`<section class="panel webhooks">
    <header class="panel-head"><h2>Webhooks of ${workspace.name}</h2></header>
    <form class="props-form" onSubmit=${create} aria-label="Add a webhook endpoint" novalidate>
      <label>URL <input name="endpoint-url" value=${url} onInput=${onValue(setUrl)} placeholder="https://example.com/hooks/sightline" size="40" /></label>
      <label>Description <input name="endpoint-description" value=${description} onInput=${onValue(setDescription)} maxlength="200" /></label>
      <${TypeChoice} chosen=${chosen} setChosen=${setChosen} prefix="endpoint-type" />
      <button type="submit">Add endpoint</button>
    </form>
    ${created ? html`<${SecretOnce} key=${created.id} name="endpoint-secret" value=${created.secret} warning=${created.warning} />` : null}
    ${done ? html`<p class="state" role="status">${done}</p>` : null}
    ${error ? html`<p class="state error" role="alert">${error}</p>` : null}
    ${list.status === 'loading' ? html`<p class="state">Loading…</p>` : null}
    ${list.status === 'error' ? html`<p class="state error" role="alert">${list.error}</p>` : null}
    ${list.status === 'ready' && list.rows.length === 0 ? html`<p class="state">No endpoints.</p>` : null}
    ${list.rows.length > 0
      ? html`<div class="scroll"><table class="endpoints">
          <thead><tr><th scope="col">URL</th><th scope="col">Event types</th><th scope="col">State</th><th scope="col" class="number">Actions</th></tr></thead>
          <tbody>
            ${list.rows.map(
              (endpoint) => html`<tr key=${endpoint.id}>
                <th scope="row" class="label" title=${endpoint.description ?? ''}>${endpoint.url}</th>
                <td class="types">${endpoint.event_types.join(', ')}</td>
                <td class="state-cell">${endpoint.status === 'active' ? 'active' : `disabled (${endpoint.disabled_reason ?? 'operator'})`}</td>
                <td class="number actions">
                  <button type="button" class="link" onClick=${() => { setShown(endpoint.id); setVersion((value) => value + 1); }}>Deliveries</button>
                  <button type="button" class="link" onClick=${test(endpoint)}>Send test</button>
                  <button type="button" class="link" onClick=${() => setEditing(endpoint.id)}>Edit</button>
                  <button type="button" class="link" onClick=${setStatus(endpoint, endpoint.status === 'active' ? 'disabled' : 'active')}>${endpoint.status === 'active' ? 'Disable' : 'Enable'}</button>
                  <button type="button" class="link" onClick=${() => setDeleting(endpoint.id)}>Delete</button>
                </td>
              </tr>`,
            )}
          </tbody>
        </table></div>`
      : null}
    ${list.rows
      .filter((endpoint) => endpoint.id === editing)
      .map((endpoint) => html`<${EditEndpoint} key=${endpoint.id} workspace=${workspace} endpoint=${endpoint} onCancel=${() => setEditing(null)} onSaved=${() => { setEditing(null); setDone('Endpoint saved.'); load(); }} />`)}
    ${list.rows
      .filter((endpoint) => endpoint.id === deleting)
      .map(
        (endpoint) => html`<div class="confirm" role="alertdialog" aria-label="Confirm the deletion">
          <p>Delete the endpoint <code>${endpoint.url}</code>? Its pending deliveries and their history go with it.</p>
          <button type="button" class="danger" onClick=${remove(endpoint)}>Delete endpoint</button>
          <button type="button" class="link" onClick=${() => setDeleting(null)}>Cancel</button>
        </div>`,
      )}
    ${shownEndpoint ? html`<${Deliveries} key=${shownEndpoint.id} workspace=${workspace} endpoint=${shownEndpoint} version=${version} />` : null}
  </section>`;
}
