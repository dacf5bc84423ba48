// @ts-check
// Segments beside the filters (CONTRACT section 10): save the dashboard's filters as a segment (personal or for
// the whole site) and apply a saved one, which sets exactly its filters again.
import { useState } from 'preact/hooks';
import { api, hasScope, messageOf, schemaKey } from './api.js';
import { html, onValue } from './html.js';
import { useList } from './use-answer.js';
/** @import { Answers } from './types.js' */

/** @typedef {Answers['GET /v1/sites/{siteId}/segments']['segments'][number]} Segment */

/**
 * @param {{ site: string, filters: Record<string, string>, onApply: (filters: Record<string, string>) => void }} props
 */
export function SegmentBar({ site, filters, onApply }) {
  const path = `/v1/sites/${encodeURIComponent(site)}/segments`;
  const segments = useList(path, schemaKey('GET', '/sites/{siteId}/segments'), (answer) => answer.segments);
  const [name, setName] = useState('');
  const [shared, setShared] = useState(false);
  const [error, setError] = useState('');
  const canSave = (hasScope('query:read') || hasScope('admin')) && Object.keys(filters).length > 0;
  /** @param {Event} event */
  const save = async (event) => {
    event.preventDefault();
    setError('');
    try {
      await api(path, { method: 'POST', body: { name: name.trim() || 'Segment', filters, visibility: shared ? 'site' : 'personal' } });
      setName('');
      segments.load();
    } catch (failure) {
      setError(messageOf(failure));
    }
  };
  /** @param {string} id */
  const apply = (id) => {
    const segment = segments.rows.find((row) => row.id === id);
    if (segment) onApply({ ...segment.filters });
  };
  return html`<div class="segments" role="group" aria-label="Segments">
    ${segments.rows.length > 0
      ? html`<label>Segment
          <select name="segment" value="" onChange=${onValue(apply)}>
            <option value="">Apply a saved segment…</option>
            ${segments.rows.map((segment) => html`<option value=${segment.id}>${segment.name}${segment.visibility === 'site' ? ' (site)' : ''}</option>`)}
          </select>
        </label>`
      : null}
    ${canSave
      ? html`<form class="segment-form" onSubmit=${save}>
          <input name="segment-name" value=${name} onInput=${onValue(setName)} placeholder="Name these filters" maxlength="128" aria-label="Segment name" />
          <label class="check"><input type="checkbox" checked=${shared} onChange=${(/** @type {Event} */ event) => setShared(/** @type {HTMLInputElement} */ (event.currentTarget).checked)} /> for the whole site</label>
          <button type="submit">Save segment</button>
        </form>`
      : null}
    ${error ? html`<p class="state error" role="alert">${error}</p>` : null}
  </div>`;
}
