// @ts-check
// A site's Settings page, in sections (?tab=): tracking and privacy (the snippet, cookieless, retention, the consent
// banner, deletion), share links (and where they may be embedded), and the workspace's webhooks, API keys, spend,
// the site's dead-letter queue and the workspace's audit log, as the session's scopes allow.
import { html } from './html.js';
import { hasScope, signedIn } from './api.js';
import { AuditPanel } from './audit.js';
import { ConsentPanel } from './consent.js';
import { DlqPanel } from './dlq.js';
import { KeysPanel } from './keys.js';
import { SharePanel } from './share-panel.js';
import { SiteSettings, SnippetLine } from './site-settings.js';
import { SpendPanel } from './spend.js';
import { WebhooksPanel } from './webhooks.js';
import { hrefOf, navigate, settingsTabs } from './view-state.js';
/** @import { Site, WorkspaceRef } from './types.js' */
/** @import { View } from './view-state.js' */

/** Which scope a section needs (read: query:read; the others: admin). */
const tabScope = /** @type {Record<string, string>} */ ({ site: 'query:read', sharing: 'admin', webhooks: 'admin', keys: 'admin', spend: 'query:read', dlq: 'admin', audit: 'admin' });

/**
 * onSiteDeleted: the site is gone (the list forgets it, then the sites overview shows)
 * @param {{ state: View, workspace?: WorkspaceRef | null, siteInfo?: Site, onSitesChanged: () => void, onSiteDeleted: () => void }} props
 */
export function SettingsPage({ state, workspace, siteInfo, onSitesChanged, onSiteDeleted }) {
  const { site, tab } = state;
  const tabs = settingsTabs.filter((item) => hasScope(tabScope[item.id] ?? 'admin'));
  const shown = tabs.some((item) => item.id === tab) ? tab : 'site';
  const needsWorkspace = html`<p class="state">This section belongs to the site's workspace, which this session cannot see.</p>`;
  /** @type {Record<string, () => unknown>} */
  const sections = {
    site: () =>
      siteInfo && workspace && signedIn().kind === 'admin'
        ? html`<${SiteSettings} key=${site} workspace=${workspace} site=${siteInfo} onChanged=${onSitesChanged} onDeleted=${onSiteDeleted} />`
        : html`<section class="panel site-panel">
              <header class="panel-head"><h2>Tracking</h2><code>${site}</code></header>
              <${SnippetLine} site=${siteInfo ?? { id: site, cookieless: true }} known=${siteInfo !== undefined} />
            </section>
            ${workspace && hasScope('admin')
              ? html`<section class="panel"><header class="panel-head"><h2>Consent banner</h2></header><${ConsentPanel} workspace=${workspace} site=${{ id: site }} /></section>`
              : null}`,
    sharing: () => html`<${SharePanel} site=${site} />`,
    webhooks: () => (workspace ? html`<${WebhooksPanel} key=${workspace.slug} workspace=${workspace} />` : needsWorkspace),
    keys: () => (workspace ? html`<${KeysPanel} key=${workspace.slug} workspace=${workspace} />` : needsWorkspace),
    spend: () => (workspace ? html`<${SpendPanel} key=${workspace.slug} workspace=${workspace} canWrite=${hasScope('admin')} />` : needsWorkspace),
    dlq: () => html`<${DlqPanel} site=${site} />`,
    audit: () => (workspace ? html`<${AuditPanel} key=${workspace.slug} workspace=${workspace} />` : needsWorkspace),
  };
  return html`<div class="settings-page">
    <nav class="tabs" aria-label="Settings sections">
      ${tabs.map(
        (item) => html`<a href=${hrefOf({ page: 'settings', tab: item.id })} onClick=${navigate({ page: 'settings', tab: item.id })} aria-current=${item.id === shown ? 'page' : undefined}>${item.label}</a>`,
      )}
    </nav>
    ${sections[shown]?.()}
  </div>`;
}
