// @ts-check
// Sources easier to scan: a letter avatar for each, its colour from the name, nothing fetched from elsewhere (no
// favicon service learns which sites a dashboard shows).
import { html } from './html.js';

/** A letter avatar: the first letter of the name on a colour of its own (a hash of the name). @param {{ name: string }} props */
export function SourceIcon({ name }) {
  let hash = 0;
  for (const char of name) hash = (hash * 31 + char.charCodeAt(0)) % 360;
  const letter = (name.replace(/^(https?:\/\/)?(www\.)?/, '')[0] ?? '?').toUpperCase();
  return html`<span class="avatar" aria-hidden="true" style=${{ '--hue': String(hash) }}>${letter}</span>`;
}

/** A source cell: avatar and name. @param {{ source: string }} props */
export function SourceLabel({ source }) {
  return html`<span class="source-label"><${SourceIcon} name=${source} /> ${source}</span>`;
}
