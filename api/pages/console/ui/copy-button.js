import { useState } from 'preact/hooks';
import { html } from '../lib/html.js';

/** A button that copies a value (a key id, a new secret) to the clipboard and says so. */
export function CopyButton({ value, label }) {
  const [said, setSaid] = useState(label);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setSaid('Copied');
    } catch {
      setSaid('Select and copy it');
    }
    setTimeout(() => setSaid(label), 2000);
  };
  return html`<button type="button" class="copy" onClick=${copy}>${said}</button>`;
}
