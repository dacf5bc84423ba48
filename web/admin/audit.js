// @ts-check
// A workspace's audit log, newest first: who did what to which target, with its details; Older pages by cursor.
import { html } from './html.js';
import { schemaKey } from './api.js';
import { DataTable } from './table.js';
import { PageState, usePages } from './use-pages.js';
/** @import { AuditEntry, Column, WorkspaceRef } from './types.js' */

/** @param {AuditEntry} entry */
const actorOf = (entry) => (entry.actor_kind === 'apiKey' ? `key ${entry.actor_id}` : entry.actor_kind);

/** @type {Column<AuditEntry>[]} */
const auditColumns = [
  { label: 'Time (UTC)', value: (entry) => entry.ts.slice(0, 19).replace('T', ' '), className: 'time' },
  { label: 'Action', value: (entry) => entry.action, className: 'action' },
  { label: 'Target', value: (entry) => entry.target, className: 'cut' },
  { label: 'By', value: actorOf, className: 'cut' },
  { label: 'Details', value: (entry) => (Object.keys(entry.metadata).length > 0 ? JSON.stringify(entry.metadata) : ''), className: 'cut' },
];

/** @param {{ workspace: WorkspaceRef }} props */
export function AuditPanel({ workspace }) {
  /** @param {string} [cursor] */
  const pathOf = (cursor) => `/v1/workspaces/${encodeURIComponent(workspace.slug)}/audit?${new URLSearchParams({ limit: '20', ...(cursor ? { cursor } : {}) })}`;
  const page = usePages(pathOf(), pathOf, { schema: schemaKey('GET', '/workspaces/{slug}/audit'), itemsOf: (answer) => answer.entries, nextOf: (answer) => answer.next_cursor });
  return html`<section class="panel audit">
    <header class="panel-head"><h2>Audit log of ${workspace.name}</h2></header>
    ${page.status === 'ready' && page.items.length === 0 ? html`<p class="state">Nothing recorded yet.</p>` : null}
    ${page.items.length > 0
      ? html`<${DataTable}
          rows=${page.items}
          columns=${auditColumns}
        />`
      : null}
    <${PageState} pages=${page} label="Older" />
  </section>`;
}
