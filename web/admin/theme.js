// @ts-check
// The colour theme: auto (the system's), light or dark, remembered in localStorage and applied to <html>.
import { signal } from '@preact/signals';
import { html } from './html.js';

const themes = ['auto', 'light', 'dark'];
const remembered = localStorage.getItem('sightline-theme') ?? '';
export const theme = signal(themes.includes(remembered) ? remembered : 'auto');

/** @param {string} choice */
function applyTheme(choice) {
  if (choice === 'auto') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = choice;
}
applyTheme(theme.value);

function cycleTheme() {
  const next = themes[(themes.indexOf(theme.value) + 1) % themes.length] ?? 'auto';
  theme.value = next;
  localStorage.setItem('sightline-theme', next);
  applyTheme(next);
}

export function ThemeButton() {
  return html`<button type="button" class="link" onClick=${cycleTheme} title="Theme: auto follows the system">Theme: ${theme.value}</button>`;
}
