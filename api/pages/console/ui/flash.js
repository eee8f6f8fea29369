// One place per page where the console says what the server said: the result of an action, or
// the server's error text (role=alert) when it refused.
import { useEffect, useState } from 'preact/hooks';
import { html } from '../lib/html.js';

let current = null;
const listeners = new Set();

export function flash(kind, message) {
  current = message ? { kind, message, at: Date.now() } : null;
  for (const listener of listeners) listener(current);
}

export function Flash() {
  const [shown, setShown] = useState(current);
  useEffect(() => {
    listeners.add(setShown);
    return () => listeners.delete(setShown);
  }, []);
  if (!shown) return html`<div id="flash"></div>`;
  return html`<div id="flash"><div class=${`flash ${shown.kind}`} role=${shown.kind === 'error' ? 'alert' : 'status'}>${shown.message}</div></div>`;
}

/** Runs an action: shows the server's error text if it fails (and returns undefined), or `done`. */
export async function act(action, done) {
  try {
    const result = await action();
    if (done) flash('info', done);
    return result ?? true;
  } catch (err) {
    flash('error', err.message);
    return undefined;
  }
}
