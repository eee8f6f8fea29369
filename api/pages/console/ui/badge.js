import { TONE, words } from '../lib/format.js';
import { html } from '../lib/html.js';

/** A status or outcome as a coloured word (the colour is never the only sign: the word is there). */
export const Badge = ({ status }) => html`<span class=${`badge ${TONE[status] ?? ''}`}>${words(status)}</span>`;
