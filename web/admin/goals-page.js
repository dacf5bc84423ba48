// @ts-check
// The Goals page's place in the navigation: the goals of the site (goals-v2), with their conversions. Its content is built in its own branch; this placeholder
// keeps the route, the URL (?page=goals) and the navigation working until it is merged in.
import { html } from './html.js';

export function GoalsPage() {
  return html`<section class="panel page-placeholder" aria-labelledby="goals-title">
    <header class="panel-head"><h2 id="goals-title">Goals</h2></header>
    <p class="state">Goals are not available in this version yet.</p>
  </section>`;
}
