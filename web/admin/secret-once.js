// @ts-check
// A secret shown once (an API key's plaintext, a share link, a webhook signing secret): its warning, a read-only
// field and a copy button.
import { useState } from 'preact/hooks';
import { html, selectField } from './html.js';

/**
 * A button that copies `value` to the clipboard and says so.
 * @param {{ value: string }} props
 */
export function CopyButton({ value }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard.writeText(value);
    setCopied(true);
  };
  return html`<button type="button" onClick=${copy}>${copied ? 'Copied' : 'Copy'}</button>`;
}

/** @param {{ warning: string, value: string, name: string }} props name: the field's */
export function SecretOnce({ warning, value, name }) {
  return html`<div class="created-link" role="status">
    <p>${warning}</p>
    <input readonly class="share-url" name=${name} value=${value} onFocus=${selectField} />
    <${CopyButton} key=${value} value=${value} />
  </div>`;
}
