// A secret shown once (an API key's plaintext, a share link): its warning, a read-only field and a copy button.
import { useState } from 'preact/hooks';
import { html } from './html.js';

export function SecretOnce({ warning, value, name }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard.writeText(value);
    setCopied(true);
  };
  return html`<div class="created-link" role="status">
    <p>${warning}</p>
    <input readonly class="share-url" name=${name} value=${value} onFocus=${(event) => event.currentTarget.select()} />
    <button type="button" onClick=${copy}>${copied ? 'Copied' : 'Copy'}</button>
  </div>`;
}
