// A secret shown once (an API key's plaintext, a share link, a webhook signing secret): its warning, a read-only
// field and a copy button.
import { useState } from 'preact/hooks';
import { html } from './html.js';

/** A button that copies `value` to the clipboard and says so. */
export function CopyButton({ value }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard.writeText(value);
    setCopied(true);
  };
  return html`<button type="button" onClick=${copy}>${copied ? 'Copied' : 'Copy'}</button>`;
}

export function SecretOnce({ warning, value, name }) {
  return html`<div class="created-link" role="status">
    <p>${warning}</p>
    <input readonly class="share-url" name=${name} value=${value} onFocus=${(event) => event.currentTarget.select()} />
    <${CopyButton} key=${value} value=${value} />
  </div>`;
}
