// @ts-check
// A list read a page at a time: the first page when `key` changes, more on demand, every answer checked against
// `schema`. { status, items, next, error, more(), remove(id) }.
import { useEffect, useState } from 'preact/hooks';
import { api, messageOf } from './api.js';
import { html } from './html.js';
/** @import { Answers, SchemaKey } from './types.js' */

/**
 * The pages read so far; `error` stays until a page is read.
 * @template Item
 * @typedef {{ status: 'loading' | 'ready' | 'error', items: Item[], next: string | null, error?: string }} Pages
 */

/**
 * @template {SchemaKey} Key
 * @template Item
 * @param {string} key identifies the list (the first page's path): a new key starts over
 * @param {(cursor?: string) => string} pathOf the path of the page after `cursor`
 * @param {{ schema: Key, itemsOf: (answer: Answers[Key]) => Item[], nextOf: (answer: Answers[Key]) => string | null }} shape
 */
export function usePages(key, pathOf, { schema, itemsOf, nextOf }) {
  /** @type {Pages<Item>} */
  const initial = { status: 'loading', items: [], next: null };
  const [state, setState] = useState(initial);
  /** @param {Omit<Pages<Item>, 'status'>} previous */
  const load = (previous) => {
    setState({ ...previous, status: 'loading' });
    api(pathOf(previous.next ?? undefined), { schema }).then(
      (answer) => setState({ status: 'ready', items: [...previous.items, ...itemsOf(answer)], next: nextOf(answer) }),
      (failure) => setState({ ...previous, status: 'error', error: messageOf(failure) }),
    );
  };
  useEffect(() => load({ items: [], next: null }), [key]);
  return {
    ...state,
    more: () => load(state),
    /** @param {string} id removes the item with this id (items that have one) */
    remove: (id) => setState((current) => ({ ...current, items: current.items.filter((item) => !(typeof item === 'object' && item !== null && 'id' in item && item.id === id)) })),
  };
}

/**
 * The foot of a paged list: loading, its error, or the button that reads the next page.
 * @param {{ pages: Pages<unknown> & { more: () => void }, label: string }} props
 */
export function PageState({ pages, label }) {
  if (pages.status === 'loading') return html`<p class="state">Loading…</p>`;
  if (pages.status === 'error') return html`<p class="state error" role="alert">${pages.error}</p>`;
  return pages.next ? html`<button type="button" class="more" onClick=${pages.more}>${label}</button>` : null;
}
