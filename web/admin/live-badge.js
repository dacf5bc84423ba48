// @ts-check
// The header's live badge: visitors of the last 5 minutes (realtime-v2, by event time), a link to the realtime page.
import { html } from './html.js';
import { useRealtime } from './realtime-figures.js';
import { hrefOf, navigate } from './view-state.js';

/** @param {{ site: string }} props */
export function LiveBadge({ site }) {
  const figures = useRealtime(site, 15_000);
  if (figures.status !== 'ready') return null;
  const count = figures.data.visitors_last_5m;
  return html`<a class=${`live-badge${count > 0 ? ' on' : ''}`} href=${hrefOf({ page: 'realtime' })} onClick=${navigate({ page: 'realtime' })} title="Visitors in the last 5 minutes">
    <span class="dot" aria-hidden="true"></span><span data-testid="live-visitors">${count}</span> live
  </a>`;
}
