// htm bound to Preact: every view writes its markup as html`<tag …>` (no build step).
import htm from 'htm';
import { h } from 'preact';

export const html = htm.bind(h);
