// @ts-check
// The Retention page's place in the navigation: returning visitors by weekly or monthly cohort (retention-v2). Its content is built in its own branch; this placeholder
// keeps the route, the URL (?page=retention) and the navigation working until it is merged in.
import { html } from './html.js';

export function RetentionPage() {
  return html`<section class="panel page-placeholder" aria-labelledby="retention-title">
    <header class="panel-head"><h2 id="retention-title">Retention</h2></header>
    <p class="state">Retention is not available in this version yet.</p>
  </section>`;
}
