// @ts-check
// One site's settings on the sites page (the admin token: the API reads and changes sites for it alone): the tracker
// snippet to copy, the cookieless and retention settings (PATCH …/sites/:id, the API's validation errors shown as
// they come), the consent banner, imports and export (imports.js), and deleting the site after a confirmation.
import { useState } from 'preact/hooks';
import { html, onChecked, onValue, selectField } from './html.js';
import { api, reporting, schemaKey } from './api.js';
import { ConsentPanel } from './consent.js';
import { EmailReports } from './email-reports.js';
import { Alerts } from './alerts.js';
import { ImportsPanel } from './imports.js';
import { CopyButton } from './secret-once.js';
/** @import { Site, WorkspaceRef } from './types.js' */

/** @param {string} slug @param {string} id */
const sitePath = (slug, id) => `/v1/workspaces/${encodeURIComponent(slug)}/sites/${encodeURIComponent(id)}`;

/**
 * The tracker's one line (docs/tracker.md), served by this server: the events go to the script's origin. A site whose
 * cookieless setting is off gets `data-cookieless="false"`, so the tracker keeps its visitor id.
 * @param {string} origin
 * @param {{ id: string, cookieless: boolean }} site
 */
export function snippetOf(origin, site) {
  const cookieless = site.cookieless ? '' : ' data-cookieless="false"';
  return `<script defer src="${origin}/sdk.js" data-site="${site.id}"${cookieless}></script>`;
}

/**
 * The snippet in a read-only field with a copy button; `known`: whether the site's cookieless setting was read.
 * @param {{ site: { id: string, cookieless: boolean }, known?: boolean }} props
 */
export function SnippetLine({ site, known = true }) {
  const snippet = snippetOf(location.origin, site);
  return html`<div class="snippet">
    <p class="hint">Paste the tracker into every page's <code>head</code>. ${!known ? 'If the site\'s cookieless setting is off, add data-cookieless="false".' : site.cookieless ? 'Cookieless: nothing is stored in the visitor\'s browser.' : 'Cookieless is off: the tracker keeps a random visitor id in localStorage.'}</p>
    <div class="created-link">
      <input readonly class="share-url" name="tracker-snippet" value=${snippet} onFocus=${selectField} aria-label="Tracker snippet" />
      <${CopyButton} value=${snippet} />
    </div>
  </div>`;
}

/** @param {{ workspace: WorkspaceRef, site: Site, onSaved: (saved: Site) => void }} props */
function Settings({ workspace, site, onSaved }) {
  const [cookieless, setCookieless] = useState(site.cookieless);
  const [retention, setRetention] = useState(site.retention_days === null ? '' : String(site.retention_days));
  const [error, setError] = useState('');
  const [done, setDone] = useState('');
  const save = reporting(setError, async () => {
    setDone('');
    // Sent as typed (a whole number, or null for forever): the API's refusal names the field and the bound.
    const days = retention.trim() === '' ? null : Number(retention);
    const saved = await api(sitePath(workspace.slug, site.id), { method: 'PATCH', body: { cookieless, retention_days: Number.isNaN(days) ? retention : days }, schema: schemaKey('PATCH', '/workspaces/{slug}/sites/{id}') });
    setDone('Settings saved.');
    onSaved(saved);
  });
  return html`<form class="props-form site-settings" onSubmit=${save} aria-label="Site settings" novalidate>
    <label class="check"><input type="checkbox" name="site-cookieless" checked=${cookieless} onChange=${onChecked(setCookieless)} /> Cookieless visitors</label>
    <label>Keep events (days, 1-3650; empty: forever) <input name="site-retention" inputmode="numeric" value=${retention} onInput=${onValue(setRetention)} placeholder="forever" /></label>
    <button type="submit">Save settings</button>
    ${done ? html`<p class="state" role="status">${done}</p>` : null}
    ${error ? html`<p class="state error" role="alert">${error}</p>` : null}
  </form>`;
}

/** @param {{ workspace: WorkspaceRef, site: Site, onDeleted: () => void }} props */
function DeleteSite({ workspace, site, onDeleted }) {
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState('');
  const remove = reporting(setError, async () => {
    await api(sitePath(workspace.slug, site.id), { method: 'DELETE' });
    onDeleted();
  });
  if (!asking) return html`<p><button type="button" class="danger" onClick=${() => setAsking(true)}>Delete site</button></p>`;
  return html`<div class="confirm" role="alertdialog" aria-label="Confirm the deletion">
    <p>Delete <strong>${site.name}</strong> (<code>${site.id}</code>) and all of its events, visits and settings? This cannot be undone.</p>
    <button type="button" class="danger" onClick=${remove}>Delete ${site.id} for good</button>
    <button type="button" class="link" onClick=${() => setAsking(false)}>Cancel</button>
    ${error ? html`<p class="state error" role="alert">${error}</p>` : null}
  </div>`;
}

/**
 * site: the listed site object; onChanged(): the list is read again (after a save or a deletion).
 * @param {{ workspace: WorkspaceRef, site: Site, onChanged: () => void, onDeleted: () => void }} props
 */
export function SiteSettings({ workspace, site, onChanged, onDeleted }) {
  const [current, setCurrent] = useState(site);
  return html`<section class="panel site-panel">
    <header class="panel-head"><h2>Settings of ${current.name}</h2><code>${current.id}</code></header>
    <h3>Tracker snippet</h3>
    <${SnippetLine} site=${current} />
    <h3>Privacy</h3>
    <${Settings} workspace=${workspace} site=${current} onSaved=${(/** @type {Site} */ saved) => { setCurrent(saved); onChanged(); }} />
    <${ConsentPanel} workspace=${workspace} site=${current} />
    <h3>E-mail reports</h3>
    <${EmailReports} siteId=${current.id} />
    <h3>Alerts</h3>
    <${Alerts} siteId=${current.id} />
    <h3>Imports and export</h3>
    <${ImportsPanel} siteId=${current.id} />
    <h3>Delete</h3>
    <${DeleteSite} workspace=${workspace} site=${current} onDeleted=${onDeleted} />
  </section>`;
}
