// A workspace's audit log, newest first: who did what to which target, with its details; Older pages by cursor.
import { useEffect, useState } from 'preact/hooks';
import { html } from './html.js';
import { api, schemaKey } from './api.js';

const actorOf = (entry) => (entry.actor_kind === 'apiKey' ? `key ${entry.actor_id}` : entry.actor_kind);

export function AuditPanel({ workspace }) {
  const [page, setPage] = useState({ status: 'loading', entries: [], next: null });
  const load = (cursor, previous) => {
    setPage({ ...previous, status: 'loading' });
    const query = new URLSearchParams({ limit: '20', ...(cursor ? { cursor } : {}) });
    api(`/v1/workspaces/${encodeURIComponent(workspace.slug)}/audit?${query}`, { schema: schemaKey('GET', '/workspaces/{slug}/audit') }).then(
      (answer) => setPage({ status: 'ready', entries: [...previous.entries, ...answer.entries], next: answer.next_cursor }),
      (failure) => setPage({ ...previous, status: 'error', error: failure.message }),
    );
  };
  useEffect(() => load(undefined, { entries: [], next: null }), [workspace.slug]);
  return html`<section class="panel audit">
    <header class="panel-head"><h2>Audit log of ${workspace.name}</h2></header>
    ${page.status === 'ready' && page.entries.length === 0 ? html`<p class="state">Nothing recorded yet.</p>` : null}
    ${page.entries.length > 0
      ? html`<div class="scroll"><table>
          <thead><tr><th scope="col">Time (UTC)</th><th scope="col">Action</th><th scope="col">Target</th><th scope="col">By</th><th scope="col">Details</th></tr></thead>
          <tbody>
            ${page.entries.map(
              (entry) => html`<tr key=${entry.id}>
                <td>${entry.ts.slice(0, 19).replace('T', ' ')}</td>
                <th scope="row" class="action">${entry.action}</th>
                <td class="cut">${entry.target ?? ''}</td>
                <td class="cut">${actorOf(entry)}</td>
                <td class="cut">${Object.keys(entry.metadata).length > 0 ? JSON.stringify(entry.metadata) : ''}</td>
              </tr>`,
            )}
          </tbody>
        </table></div>`
      : null}
    ${page.status === 'loading' ? html`<p class="state">Loading…</p>` : null}
    ${page.status === 'error' ? html`<p class="state error" role="alert">${page.error}</p>` : null}
    ${page.status === 'ready' && page.next ? html`<button type="button" class="more" onClick=${() => load(page.next, page)}>Older</button>` : null}
  </section>`;
}
