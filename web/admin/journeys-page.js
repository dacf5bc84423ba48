// @ts-check
// The Journeys page's place in the navigation: the paths visitors take (journeys-v2 and page-flow-v2). Its content is built in its own branch; this placeholder
// keeps the route, the URL (?page=journeys) and the navigation working until it is merged in.
import { html } from './html.js';

export function JourneysPage() {
  return html`<section class="panel page-placeholder" aria-labelledby="journeys-title">
    <header class="panel-head"><h2 id="journeys-title">Journeys</h2></header>
    <p class="state">Journeys are not available in this version yet.</p>
  </section>`;
}
