// @ts-check
// Share links of a site: create one (its link shown once, with a copy button, and its embedding code when it lists
// origins allowed to frame it), list them, revoke them.
import { useEffect, useState } from 'preact/hooks';
import { html, onValue } from './html.js';
import { api, messageOf, reporting, schemaKey } from './api.js';
import { SecretOnce } from './secret-once.js';
/** @import { CreatedShareLink, ShareLink } from './types.js' */

/** @param {string} site */
const linksPath = (site) => `/v1/sites/${encodeURIComponent(site)}/share-links`;

/** @param {{ site: string }} props */
export function SharePanel({ site }) {
  /** @type {{ status: 'loading' | 'ready' | 'error', rows: ShareLink[], error?: string }} */
  const initial = { status: 'loading', rows: [] };
  const [links, setLinks] = useState(initial);
  const [label, setLabel] = useState('');
  const [origins, setOrigins] = useState('');
  const [created, setCreated] = useState(/** @type {(CreatedShareLink & { url: string }) | null} */ (null));
  const [error, setError] = useState('');
  const load = () =>
    api(linksPath(site), { schema: schemaKey('GET', '/sites/{siteId}/share-links') }).then(
      (answer) => setLinks({ status: 'ready', rows: answer.share_links }),
      (failure) => setLinks({ status: 'error', rows: [], error: messageOf(failure) }),
    );
  useEffect(() => {
    load();
  }, [site]);
  const create = reporting(setError, async () => {
    // Sent as typed, split on commas and spaces: the API says which origin it refuses and why.
    const embedOrigins = origins.split(/[\s,]+/).filter(Boolean);
    const body = embedOrigins.length > 0 ? { label, embed_origins: embedOrigins } : { label };
    const link = await api(linksPath(site), { method: 'POST', body, schema: schemaKey('POST', '/sites/{siteId}/share-links') });
    const embed = link.embed_origins.length > 0 ? `&embed=${encodeURIComponent(link.id)}` : '';
    setCreated({ ...link, url: `${location.origin}/?site=${encodeURIComponent(site)}${embed}#share=${link.token}` });
    setLabel('');
    setOrigins('');
    load();
  });
  /** @param {string} id */
  const revoke = (id) =>
    reporting(setError, async () => {
      await api(`${linksPath(site)}/${encodeURIComponent(id)}`, { method: 'DELETE', schema: schemaKey('DELETE', '/sites/{siteId}/share-links/{linkId}') });
      if (created?.id === id) setCreated(null);
      load();
    });
  return html`<section class="panel share">
    <header class="panel-head"><h2>Share links</h2></header>
    <form class="props-form" onSubmit=${create}>
      <label>Label <input name="share-label" value=${label} onInput=${onValue(setLabel)} required maxlength="200" /></label>
      <label>Embeddable on (origins, optional) <input name="share-embed-origins" value=${origins} onInput=${onValue(setOrigins)} placeholder="https://intranet.example" /></label>
      <button type="submit">Create link</button>
    </form>
    ${created
      ? html`<${SecretOnce} key=${created.id} name="share-url" value=${created.url} warning="Anyone with this link can read this site's reports until it is revoked. It is shown only now:" />`
      : null}
    ${error ? html`<p class="state error" role="alert">${error}</p>` : null}
    ${links.status === 'loading' ? html`<p class="state">Loading…</p>` : null}
    ${links.status === 'error' ? html`<p class="state error" role="alert">${links.error}</p>` : null}
    ${links.status === 'ready' && links.rows.length === 0 ? html`<p class="state">No share links.</p>` : null}
    ${links.rows.length > 0
      ? html`<table>
          <thead><tr><th scope="col">Label</th><th scope="col">Created</th><th scope="col">Embeddable on</th><th scope="col" class="number">State</th></tr></thead>
          <tbody>
            ${links.rows.map(
              (link) => html`<tr key=${link.id}>
                <th scope="row" class="label">${link.label}</th>
                <td>${link.created_at.slice(0, 10)}</td>
                <td class="cut">${link.embed_origins.join(', ') || '–'}</td>
                <td class="number">${link.revoked_at ? 'revoked' : html`<button type="button" class="link" onClick=${revoke(link.id)}>Revoke</button>`}</td>
              </tr>`,
            )}
          </tbody>
        </table>`
      : null}
  </section>`;
}
