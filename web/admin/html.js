// @ts-check
// Preact through htm: tagged templates instead of a JSX step. Values are rendered as text (never as markup).
// htm's types take any value, so a template's props are not checked where a component is used: each component types
// its own props (JSDoc), and the handlers below type the events they read.
import { h } from 'preact';
import htm from 'htm';

export const html = htm.bind(h);

/**
 * An input or change handler that passes on the value of its field (input, select, textarea):
 * onInput=${onValue(setName)}.
 * @param {(value: string) => void} use
 * @returns {(event: Event) => void}
 */
export const onValue = (use) => (event) => use(/** @type {HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement} */ (event.currentTarget).value);

/**
 * A change handler that passes on whether its checkbox is checked: onChange=${onChecked(setCookieless)}.
 * @param {(checked: boolean) => void} use
 * @returns {(event: Event) => void}
 */
export const onChecked = (use) => (event) => use(/** @type {HTMLInputElement} */ (event.currentTarget).checked);

/**
 * A focus handler that selects the text of its field (a secret or a snippet to copy).
 * @param {Event} event
 */
export const selectField = (event) => /** @type {HTMLInputElement} */ (event.currentTarget).select();
