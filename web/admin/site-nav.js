// @ts-check
// A site's pages as links (each its own URL, so the back button and bookmarks work): a row of tabs that scrolls
// sideways on a phone rather than widening the page.
import { html } from './html.js';
import { hasScope } from './api.js';
import { hrefOf, navigate, pages } from './view-state.js';

/** @param {{ current: string, shared: boolean }} props */
export function SiteNav({ current, shared }) {
  return html`<nav class="site-nav" aria-label="Site pages">
    ${pages
      .filter((page) => (shared ? page.shared : !page.scope || hasScope(page.scope)))
      .map((page) => html`<a href=${hrefOf({ page: page.id })} onClick=${navigate({ page: page.id })} aria-current=${page.id === current ? 'page' : undefined}>${page.label}</a>`)}
  </nav>`;
}
