// A list read a page at a time: the first page when `key` changes, more on demand, every answer checked against
// `schema`. { status, items, next, error, more(), remove(id) }.
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { html } from './html.js';

/**
 * @param {string} key identifies the list (the first page's path): a new key starts over
 * @param {(cursor?: string) => string} pathOf the path of the page after `cursor`
 * @param {{ schema: string, itemsOf: (answer) => object[], nextOf: (answer) => string | null }} shape
 */
export function usePages(key, pathOf, { schema, itemsOf, nextOf }) {
  const [state, setState] = useState({ status: 'loading', items: [], next: null });
  const load = (previous) => {
    setState({ ...previous, status: 'loading' });
    api(pathOf(previous.next ?? undefined), { schema }).then(
      (answer) => setState({ status: 'ready', items: [...previous.items, ...itemsOf(answer)], next: nextOf(answer) }),
      (failure) => setState({ ...previous, status: 'error', error: failure.message }),
    );
  };
  useEffect(() => load({ items: [], next: null }), [key]);
  return {
    ...state,
    more: () => load(state),
    remove: (id) => setState((current) => ({ ...current, items: current.items.filter((item) => item.id !== id) })),
  };
}

/** The foot of a paged list: loading, its error, or the button that reads the next page. */
export function PageState({ pages, label }) {
  if (pages.status === 'loading') return html`<p class="state">Loading…</p>`;
  if (pages.status === 'error') return html`<p class="state error" role="alert">${pages.error}</p>`;
  return pages.next ? html`<button type="button" class="more" onClick=${pages.more}>${label}</button>` : null;
}
