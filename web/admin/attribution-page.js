// @ts-check
// The Attribution and ROI page: the workspace's attribution results and ROI (attribution.js).
import { html } from './html.js';
import { AttributionPanel } from './attribution.js';
/** @import { WorkspaceRef } from './types.js' */

/** @param {{ workspace?: WorkspaceRef | null }} props */
export function AttributionPage({ workspace }) {
  if (!workspace) return html`<p class="state">Attribution is computed for the site's workspace, which this session cannot see.</p>`;
  return html`<div class="attribution-page"><${AttributionPanel} key=${workspace.slug} workspace=${workspace} /></div>`;
}
