// @ts-check
// The Funnels page: the period picker and the funnel builder (funnel.js) of the site's workspace.
import { html } from './html.js';
import { FilterChips, PeriodPicker, usePeriodKeys } from './dashboard.js';
import { FunnelPanel } from './funnel.js';
import { rangeOf } from './view-state.js';
/** @import { WorkspaceRef } from './types.js' */
/** @import { View } from './view-state.js' */

/** @param {{ state: View, workspace?: WorkspaceRef | null }} props */
export function FunnelsPage({ state, workspace }) {
  const range = rangeOf(state);
  usePeriodKeys();
  return html`<div class="funnels-page">
    <${PeriodPicker} state=${state} range=${range} />
    <${FilterChips} filters=${state.filters} />
    ${workspace
      ? html`<${FunnelPanel} site=${state.site} workspace=${workspace} range=${range} filters=${state.filters} />`
      : html`<p class="state">Funnels are asked of the site's workspace, which this session cannot see.</p>`}
  </div>`;
}
