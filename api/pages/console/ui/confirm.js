// Asking before an action that cannot be undone: a dialog in the page (not the browser's own),
// naming the action on its button, with Cancel focused first and Escape cancelling.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from '../lib/html.js';

let ask = null;

/**
 * Resolves true when the operator confirms, false when they cancel. `action` names the confirm
 * button ("Revoke", "Delete"); `danger` marks it as destructive.
 */
export function confirmFirst(question, { action = 'Confirm', danger = true } = {}) {
  return new Promise((resolve) => {
    if (!ask) resolve(window.confirm(question));
    else ask({ question, action, danger, resolve });
  });
}

/** Mounted once at the console's root: shows one question at a time. */
export function ConfirmDialog() {
  const [pending, setPending] = useState(null);
  const dialog = useRef(null);
  const cancel = useRef(null);
  useEffect(() => {
    ask = setPending;
    return () => {
      ask = null;
    };
  }, []);
  useEffect(() => {
    if (!pending || !dialog.current) return;
    if (!dialog.current.open) dialog.current.showModal();
    cancel.current?.focus();
  }, [pending]);
  const answer = (yes) => {
    pending?.resolve(yes);
    dialog.current?.close();
    setPending(null);
  };
  return html`<dialog ref=${dialog} class="confirm" aria-labelledby="confirm-question" onCancel=${(e) => {
    e.preventDefault();
    return answer(false);
  }}>
    ${
      pending
        ? html`<p id="confirm-question">${pending.question}</p>
          <div class="buttons">
            <button type="button" ref=${cancel} onClick=${() => answer(false)}>Cancel</button>
            <button type="button" class=${pending.danger ? 'danger solid' : 'primary'} onClick=${() => answer(true)}>${pending.action}</button>
          </div>`
        : null
    }
  </dialog>`;
}
