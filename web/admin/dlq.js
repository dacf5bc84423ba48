// @ts-check
// The site's dead-letter queue: events the tracking plan quarantined, newest first, with their payload and errors,
// and a Replay button that sends one through the ingest pipeline again (under the current plan).
import { useState } from 'preact/hooks';
import { html } from './html.js';
import { api, reporting, schemaKey } from './api.js';
import { PageState, usePages } from './use-pages.js';

/** @param {string} site */
const dlqPath = (site) => `/v1/sites/${encodeURIComponent(site)}/dlq`;

/** @param {{ site: string }} props */
export function DlqPanel({ site }) {
  /** @param {string} [cursor] */
  const pathOf = (cursor) => `${dlqPath(site)}?${new URLSearchParams({ limit: '20', ...(cursor ? { cursor } : {}) })}`;
  const rows = usePages(pathOf(), pathOf, { schema: schemaKey('GET', '/sites/{siteId}/dlq'), itemsOf: (answer) => answer.events, nextOf: (answer) => answer.next_cursor });
  const [error, setError] = useState('');
  const [replayed, setReplayed] = useState('');
  /** @param {string} id */
  const replay = (id) =>
    reporting(setError, async () => {
      setReplayed('');
      await api(`${dlqPath(site)}/${encodeURIComponent(id)}/replay`, { method: 'POST', schema: schemaKey('POST', '/sites/{siteId}/dlq/{eventId}/replay') });
      setReplayed(`Event ${id} replayed: it is stored and counted now.`);
      rows.remove(id);
    });
  return html`<section class="panel dlq">
    <header class="panel-head"><h2>Dead-letter queue</h2></header>
    ${replayed ? html`<p class="state" role="status">${replayed}</p>` : null}
    ${error ? html`<p class="state error" role="alert">${error}</p>` : null}
    ${rows.status === 'ready' && rows.items.length === 0 ? html`<p class="state">No quarantined events.</p>` : null}
    ${rows.items.length > 0
      ? html`<ol class="dlq-rows">
          ${rows.items.map(
            (row) => html`<li key=${row.id}>
              <div class="dlq-head">
                <span class="live-type">${String(row.payload.type ?? '(no type)')}</span>
                <time datetime=${row.received_at}>${row.received_at.slice(0, 19).replace('T', ' ')}</time>
                <button type="button" class="link" onClick=${replay(row.id)}>Replay</button>
              </div>
              <ul class="dlq-errors">${row.error.map((detail) => html`<li><code>${detail.path || '/'}</code> ${detail.message}</li>`)}</ul>
              <details><summary>Payload</summary><pre>${JSON.stringify(row.payload, null, 2)}</pre></details>
            </li>`,
          )}
        </ol>`
      : null}
    <${PageState} pages=${rows} label="Older" />
  </section>`;
}
