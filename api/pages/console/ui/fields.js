// Forms with the server's refusal next to the field it names: the API's 400 texts name each
// field ("body.alertEmail must match format "email""; several joined by "; "), so each part that
// names a field of the form goes under that field and the rest above the form.
import { html } from '../lib/html.js';

/** @typedef {Record<string, string>} FieldErrors { field: text }, and `form` for the rest */

/**
 * Splits a refusal into { field: text } for the named fields, and `form` for the rest.
 * @param {unknown} message
 * @param {string[]} names
 * @returns {FieldErrors}
 */
export function fieldErrors(message, names, root = 'body') {
  /** @type {FieldErrors} */
  const errors = {};
  const rest = [];
  for (const part of String(message).split('; ')) {
    const match = part.match(new RegExp(`^${root}\\.([A-Za-z0-9_]+)(?:\\.[^ ]*|\\[[^ ]*)?\\s+(.*)$`));
    if (match && names.includes(match[1])) errors[match[1]] = errors[match[1]] ? `${errors[match[1]]}; ${match[2]}` : match[2];
    else rest.push(part);
  }
  if (rest.length) errors.form = rest.join('; ');
  return errors;
}

/** A labelled field with its error under it, outside the label (aria-describedby ties the two). */
export function Field({ label, name, error, hint, children }) {
  return html`<div class=${error ? 'field invalid' : 'field'}>
    <label><span class="label-text">${label}</span>${children}</label>
    ${hint ? html`<span class="hint">${hint}</span>` : null}
    ${error ? html`<span class="field-error" id=${`${name}-error`}>${error}</span>` : null}
  </div>`;
}

/** The attributes that tie an input to its error. */
export const invalidIf = (error, name) => (error ? { 'aria-invalid': 'true', 'aria-describedby': `${name}-error` } : {});
